import { describe, expect, it } from 'vitest';
import { CheckpointError, ConfigError } from '../core/errors.ts';
import { outcome, testProblem } from '../testing/curricula/test-pool.ts';
import { createDump, dumpScore } from './dump.ts';

describe('dump', () => {
  it('UCB = mean|a| + c·sqrt(2·ln(N+1)/(n_j+1)): window [0.5, −1.5], n_j = 2, N = 6 → 1 + 1.138979', () => {
    expect(dumpScore([0.5, -1.5], 2, 6, 1)).toBeCloseTo(2.138979, 5);
    // An arm never seen, N = 0: ln 1 = 0, so the score is 0.
    expect(dumpScore([], 0, 0, 1)).toBe(0);
  });

  it('keeps a sliding window and softmaxes UCB at τ', () => {
    const pool = [testProblem('a', { category: 'x' }), testProblem('b', { category: 'y' })];
    const selector = createDump(pool, { arms: 'category', windowSize: 2, temperature: 0.1 });
    selector.observe(0, [outcome(pool[0], [1, 0, 1], [3, -1, 1])]); // window keeps the last 2: [−1, 1]
    const metrics = selector.metrics();
    // x: mean|a| = 1, n = 3, N = 3 → 1 + sqrt(2 ln 4 / 4) = 1 + 0.832555; y: 0 + sqrt(2 ln 4 / 1) = 1.665109.
    expect(metrics['curriculum/x/ucb']).toBeCloseTo(1.832555, 5);
    expect(metrics['curriculum/y/ucb']).toBeCloseTo(1.665109, 5);
    // softmax at τ = 0.1: 1/(1 + e^{−1.67446}) = 0.842160.
    expect(metrics['curriculum/x/prob']).toBeCloseTo(0.84216, 4);
  });

  it("by default its arms are task × difficulty strata, as the paper's puzzle sizes (one task is not one arm)", () => {
    // One task at two levels: the old default (arm = category) made this a single arm, i.e. uniform.
    const pool = [1, 1, 2, 2].map((difficulty, index) => testProblem(`p${index}`, { difficulty }));
    const selector = createDump(pool, {});
    selector.observe(0, [outcome(pool[0], [1, 0], [1, -1])]);
    const metrics = selector.metrics();
    expect(Object.keys(metrics).filter((key) => key.endsWith('/prob'))).toEqual([
      'curriculum/addition-1/prob',
      'curriculum/addition-2/prob',
    ]);
    // addition-1: mean|a| = 1, n = 2, N = 2 → 1 + sqrt(2 ln 3 / 3) = 1.855813; addition-2: sqrt(2 ln 3) = 1.482304.
    expect(metrics['curriculum/addition-1/ucb']).toBeCloseTo(1.855813, 5);
    expect(metrics['curriculum/addition-2/ucb']).toBeCloseTo(1.482304, 5);
  });

  it('refuses a saved state with other arms (an older default), naming the option to set', () => {
    const pool = [1, 2].map((difficulty, index) => testProblem(`p${index}`, { difficulty }));
    const saved = createDump(pool, { arms: 'category' }).state();
    expect(() => createDump(pool, {}).load(saved)).toThrow(CheckpointError);
    expect(() => createDump(pool, {}).load(saved)).toThrow(
      /saved state has 1 arms .* give 2 .*selector\.options\.arms/,
    );
    createDump(pool, { arms: 'category' }).load(saved);
  });

  it('its default arms need a difficulty: a pool without one fails at config time, naming the way out', () => {
    const pool = [testProblem('a', { difficulty: Number.NaN })];
    expect(() => createDump(pool, {})).toThrow(ConfigError);
    expect(() => createDump(pool, {})).toThrow(
      "selector 'dump' needs 'difficulty' on every problem; problem 'a' has none. Give every problem a numeric difficulty, or set selector.options.arms to 'task' or 'category'.",
    );
    expect(() => createDump(pool, { arms: 'task' })).not.toThrow();
  });
});
