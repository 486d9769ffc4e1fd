import { describe, expect, it } from 'vitest';
import { CheckpointError } from '../core/errors.ts';
import { outcome, testProblem } from '../testing/curricula/test-pool.ts';
import { createLearningProgress, learningProgressDistribution, reweight } from './learning-progress.ts';

describe('learning-progress', () => {
  it('reweights f(p) = p(1−θ)/(p + θ(1−2p))', () => {
    expect(reweight(0.5, 0.1)).toBeCloseTo(0.9, 12);
    expect(reweight(0.2, 0.1)).toBeCloseTo(0.18 / 0.26, 12);
    expect(reweight(0, 0.1)).toBe(0);
  });

  it('normalises success rates as Syllabus: baseline b = min(first p, 0.75), EMAs of max(p − b, 0)/(1 − b)', () => {
    const pool = [testProblem('a', { difficulty: 1 }), testProblem('b', { difficulty: 2 })];
    const selector = createLearningProgress(pool, { arms: 'difficulty' });
    // Pass rates 0.2 then 0.6: b = 0.2, normalised 0 then 0.5 → fast 0.05, slow 0.005 (raw EMAs would
    // give 0.24 and 0.204).
    selector.observe(0, [outcome(pool[0], [1, 0, 0, 0, 0])]);
    selector.observe(1, [outcome(pool[0], [1, 1, 1, 0, 0])]);
    const state = selector.state() as { fast: number[]; slow: number[]; baseline: number[] };
    expect(state.baseline[0]).toBeCloseTo(0.2, 12);
    expect(state.fast[0]).toBeCloseTo(0.05, 12);
    expect(state.slow[0]).toBeCloseTo(0.005, 12);
    // LP = f(0.05) − f(0.005) = 0.045/0.14 − 0.0045/0.104 = 0.278159; arm '2' unseen → optimistic LP,
    // the same: 0.5 each.
    expect(selector.metrics()['curriculum/1/prob']).toBeCloseTo(0.5, 12);
    // A first pass rate above 0.75 is capped: b = min(0.9, 0.75) = 0.75, so 0.9 normalises to 0.6.
    selector.observe(2, [outcome(pool[1], [1, 1, 1, 1, 0, 1, 1, 1, 1, 1])]);
    expect((selector.state() as { baseline: number[] }).baseline[1]).toBeCloseTo(0.75, 12);
    expect((selector.state() as { fast: number[] }).fast[1]).toBeCloseTo(0.6, 12); // (0.9 − 0.75)/0.25
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

  it('a state saved before normalisation resumes only with normalizeSuccess: false', () => {
    const pool = [testProblem('a', { difficulty: 1 })];
    const legacy = {
      selector: 'learning-progress',
      fast: [0.3],
      slow: [0.2],
      last: [0.4],
      lists: { orders: [null], cursors: [0] },
    };
    expect(() => createLearningProgress(pool, { arms: 'difficulty' }).load(legacy)).toThrow(CheckpointError);
    const selector = createLearningProgress(pool, { arms: 'difficulty', normalizeSuccess: false });
    selector.load(legacy);
    expect((selector.state() as { trueRate: number[] }).trueRate).toEqual([0.4]);
  });
});
