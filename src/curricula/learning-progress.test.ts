import { describe, expect, it } from 'vitest';
import { createLearningProgress, learningProgressDistribution, reweight } from './learning-progress.ts';
import { outcome, testProblem } from './test-pool.ts';

describe('learning-progress', () => {
  it('reweights f(p) = p(1−θ)/(p + θ(1−2p))', () => {
    expect(reweight(0.5, 0.1)).toBeCloseTo(0.9, 12);
    expect(reweight(0.2, 0.1)).toBeCloseTo(0.18 / 0.26, 12);
    expect(reweight(0, 0.1)).toBe(0);
  });

  it('fast/slow EMAs after pass rates 0.2 then 0.6: fast 0.24, slow 0.204, LP = f(0.24) − f(0.204)', () => {
    const pool = [testProblem('a', { difficulty: 1 }), testProblem('b', { difficulty: 2 })];
    const selector = createLearningProgress(pool, { arms: 'difficulty' });
    selector.observe(0, [outcome(pool[0], [1, 0, 0, 0, 0])]);
    selector.observe(1, [outcome(pool[0], [1, 1, 1, 0, 0])]);
    const state = selector.state() as { fast: number[]; slow: number[] };
    expect(state.fast[0]).toBeCloseTo(0.24, 12);
    expect(state.slow[0]).toBeCloseTo(0.204, 12);
    // LP = 0.216/0.292 − 0.1836/0.2632 = 0.739726 − 0.697568 = 0.042158; arm '2' unseen → optimistic
    // LP = 0.042158 too, so the two arms tie: 0.5 each.
    expect(selector.metrics()['curriculum/1/prob']).toBeCloseTo(0.5, 12);
  });

  it('z-scores, squashes and normalises: LP [0.1, 0.3, unseen] → [0.12740, 0.43630, 0.43630]', () => {
    const distribution = learningProgressDistribution([0.1, 0.3, null], [0.5, 0.5, null]);
    expect(distribution[0]).toBeCloseTo(0.1274, 4);
    expect(distribution[1]).toBeCloseTo(0.4363, 4);
    expect(distribution[2]).toBeCloseTo(0.4363, 4);
  });

  it('gives no probability to an arm with no progress and no success', () => {
    expect(learningProgressDistribution([0, 0.2], [0, 0.5])).toEqual([0, 1]);
  });
});
