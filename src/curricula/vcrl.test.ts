import { describe, expect, it } from 'vitest';
import { Rng } from '../core/rng.ts';
import { outcome, testProblem } from '../testing/curricula/test-pool.ts';
import { createVcrl, vcrlScore } from './vcrl.ts';

describe('vcrl', () => {
  it('normalised group variance: even G = 8 gives 4k(G−k)/G²', () => {
    expect(vcrlScore(4, 8)).toBeCloseTo(1, 12);
    expect(vcrlScore(2, 8)).toBeCloseTo(0.75, 12); // (12/56) / (8/28)
    expect(vcrlScore(0, 8)).toBe(0);
    expect(vcrlScore(8, 8)).toBe(0);
  });

  it('odd G = 5 uses σ²_max = (G+1)/(4G) = 0.3', () => {
    expect(vcrlScore(2, 5)).toBeCloseTo(1, 12); // 0.3 / 0.3
    expect(vcrlScore(1, 5)).toBeCloseTo(2 / 3, 12); // 0.2 / 0.3
  });

  it('replays high-variance problems and drops them when their variance falls', () => {
    const pool = Array.from({ length: 10 }, (_, i) => testProblem(`p${i}`));
    const selector = createVcrl(pool, { replayFraction: 0.5 });
    selector.observe(0, [outcome(pool[3], [1, 0, 1, 0]), outcome(pool[4], [1, 1, 1, 1])]);
    expect(selector.metrics()['curriculum/bank_size']).toBe(1);
    const batch = selector.select(2, new Rng(1)).map((problem) => problem.id);
    expect(batch[0]).toBe('p3'); // one replay slot, then one fresh problem
    selector.observe(1, [outcome(pool[3], [1, 1, 1, 1])]);
    expect(selector.metrics()['curriculum/bank_size']).toBe(0);
  });
});
