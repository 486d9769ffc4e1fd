import { describe, expect, it } from 'vitest';
import { ConfigError } from '../core/errors.ts';
import { Rng } from '../core/rng.ts';
import { testProblem } from '../testing/curricula/test-pool.ts';
import { createE2h, e2hProbabilities } from './e2h.ts';
import { hardFirstProbabilities } from './hard-first.ts';

describe('e2h schedules', () => {
  it('cosine moves from (K−i)/S to (i+1)/S; K = 3 gives [1/2, 1/3, 1/6] → [1/6, 1/3, 1/2]', () => {
    const start = e2hProbabilities('cosine', 0, 100, 3);
    [0.5, 1 / 3, 1 / 6].forEach((p, i) => {
      expect(start[i]).toBeCloseTo(p, 12);
    });
    const end = e2hProbabilities('cosine', 100, 100, 3);
    [1 / 6, 1 / 3, 0.5].forEach((p, i) => {
      expect(end[i]).toBeCloseTo(p, 12);
    });
    // Halfway a = 1/2: every level (K−i + i+1)/(2S) = 4/12.
    e2hProbabilities('cosine', 50, 100, 3).forEach((p) => {
      expect(p).toBeCloseTo(1 / 3, 12);
    });
  });

  it('classic is one-hot on ⌊tK/T⌋ and balanced is uniform', () => {
    expect(e2hProbabilities('classic', 50, 100, 4)).toEqual([0, 0, 1, 0]);
    expect(e2hProbabilities('classic', 100, 100, 4)).toEqual([0, 0, 0, 1]);
    expect(e2hProbabilities('balanced', 7, 100, 4)).toEqual([0.25, 0.25, 0.25, 0.25]);
  });

  it('gaussian centres μ = (t/T)^0.5·(K−1) with the floor p_min = 2/(K(K+1))', () => {
    const p = e2hProbabilities('gaussian', 100, 100, 3);
    // μ = 2; q ∝ [e^{−8}, e^{−2}, 1]; p_min = 1/6.
    const q = [Math.exp(-8), Math.exp(-2), 1];
    const total = q[0] + q[1] + q[2];
    q.forEach((value, i) => {
      expect(p[i]).toBeCloseTo(1 / 6 + 0.5 * (value / total), 12);
    });
  });

  it('hard-first widens from the hardest level toward the easiest', () => {
    expect(hardFirstProbabilities(0, 100, 4, true)).toEqual([0, 0, 0, 1]);
    expect(hardFirstProbabilities(50, 100, 4, true)).toEqual([0, 1 / 3, 1 / 3, 1 / 3]);
    expect(hardFirstProbabilities(50, 100, 4, false)).toEqual([0, 1, 0, 0]);
  });

  it('classic takes only the scheduled level and needs totalSteps', () => {
    const pool = [0, 0, 1, 1].map((level, i) => testProblem(`p${i}`, { difficulty: level }));
    const selector = createE2h(pool, { schedule: 'classic', totalSteps: 10 });
    expect(selector.select(4, new Rng(1)).every((problem) => problem.difficulty === 0)).toBe(true);
    selector.observe(5, []);
    expect(selector.select(4, new Rng(1)).every((problem) => problem.difficulty === 1)).toBe(true);
    expect(() => createE2h(pool, {})).toThrow(ConfigError);
  });

  it("takes totalSteps from the run's context when the options leave it out", () => {
    const pool = [0, 0, 1, 1].map((level, i) => testProblem(`p${i}`, { difficulty: level }));
    const selector = createE2h(pool, { schedule: 'classic' }, { totalSteps: 10 });
    selector.observe(5, []);
    expect(selector.select(4, new Rng(1)).every((problem) => problem.difficulty === 1)).toBe(true);
    // The options win over the context: with totalSteps 100, step 5 is still in the first half.
    const explicit = createE2h(pool, { schedule: 'classic', totalSteps: 100 }, { totalSteps: 10 });
    explicit.observe(5, []);
    expect(explicit.select(4, new Rng(1)).every((problem) => problem.difficulty === 0)).toBe(true);
  });
});
