import { describe, expect, it } from 'vitest';
import type { Problem } from '../core/problem.ts';
import { PassRateTracker } from './pass-rate-tracker.ts';

const problem = (id: string) => ({ id }) as Problem;

describe('PassRateTracker', () => {
  it('starts at 0.5 and adds successes and failures to a Beta(1, 1) prior', () => {
    const tracker = new PassRateTracker();
    expect(tracker.estimatedPassRate(problem('a'))).toBe(0.5);
    tracker.observe([
      { problem: problem('a'), rewards: [1, 1, 1, 0] },
      { problem: problem('a'), rewards: [0, 0] },
      { problem: problem('b'), rewards: [0, 0, 0, 0, 0, 0, 0, 0] },
    ]);
    // a: α = 1 + 3, β = 1 + 3 → 0.5; b: α = 1, β = 9 → 0.1.
    expect(tracker.posterior('a')).toEqual({ alpha: 4, beta: 4 });
    expect(tracker.estimatedPassRate(problem('b'))).toBeCloseTo(0.1, 12);
  });

  it('fades evidence toward the prior by (1 − λ) per step since the last update', () => {
    const tracker = new PassRateTracker(0.5);
    tracker.observe([{ problem: problem('a'), rewards: [1, 1, 1, 1] }]); // α = 5 at step 0
    tracker.observe([]); // step 1
    tracker.observe([]); // step 2 → now at step 3: 3 steps of fading since step 0
    expect(tracker.posterior('a').alpha).toBeCloseTo(1 + 4 * 0.125, 12);
    tracker.observe([{ problem: problem('a'), rewards: [0] }]);
    expect(tracker.posterior('a').beta).toBeCloseTo(1 + 1 * 0.5, 12); // β = 2 at step 3, now step 4
  });

  it('round-trips its state and rejects a foreign one', () => {
    const tracker = new PassRateTracker(0.1);
    tracker.observe([{ problem: problem('a'), rewards: [1, 0, 0] }]);
    const copy = new PassRateTracker(0.1);
    copy.load(JSON.parse(JSON.stringify(tracker.state())));
    expect(copy.posterior('a')).toEqual(tracker.posterior('a'));
    expect(() => copy.load({ selector: 'bots' })).toThrow(/pass-rate tracker state/);
    expect(() => new PassRateTracker(1)).toThrow(RangeError);
  });
});
