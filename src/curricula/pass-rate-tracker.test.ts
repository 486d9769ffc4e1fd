import { describe, expect, it } from 'vitest';
import type { Problem } from '../core/problem.ts';
import { PassRateTracker } from './pass-rate-tracker.ts';

const problem = (id: string, difficulty = 1) => ({ id, task: 'addition', difficulty }) as Problem;

describe('PassRateTracker', () => {
  it('starts at 0.5 and pools each problem with its level (prior strength 2)', () => {
    const tracker = new PassRateTracker();
    expect(tracker.estimatedPassRate(problem('a'))).toBe(0.5);
    tracker.observe([
      { problem: problem('a'), rewards: [1, 1, 1, 0] },
      { problem: problem('a'), rewards: [0, 0] },
      { problem: problem('b'), rewards: [0, 0, 0, 0, 0, 0, 0, 0] },
      { problem: problem('c', 4), rewards: [1, 1] },
    ]);
    // Level 1: S = 3, F = 11 → p_L = 4/16 = 0.25.
    // a: (2·0.25 + 3) / (2 + 6) = 3.5/8; b: (0.5 + 0) / (2 + 8) = 0.05; unseen d of level 1: 0.25.
    expect(tracker.estimatedPassRate(problem('a'))).toBeCloseTo(3.5 / 8, 12);
    expect(tracker.estimatedPassRate(problem('b'))).toBeCloseTo(0.05, 12);
    expect(tracker.estimatedPassRate(problem('d'))).toBeCloseTo(0.25, 12);
    // Level 4: S = 2, F = 0 → 3/4; an unseen level-4 problem takes it, an unseen level 0.5.
    expect(tracker.estimatedPassRate(problem('e', 4))).toBeCloseTo(0.75, 12);
    expect(tracker.estimatedPassRate(problem('f', 9))).toBe(0.5);
  });

  it('fades evidence by (1 − λ) per step since the last update', () => {
    const tracker = new PassRateTracker({ discount: 0.5, priorStrength: 1 });
    tracker.observe([{ problem: problem('a'), rewards: [1, 1, 1, 1] }]); // S = 4 at step 0
    tracker.observe([]);
    tracker.observe([]); // now step 3: counts × 0.125 → S = 0.5, F = 0
    const level = (0.5 + 1) / (0.5 + 2);
    expect(tracker.estimatedPassRate(problem('a'))).toBeCloseTo((level + 0.5) / (1 + 0.5), 12);
  });

  it('round-trips its state and rejects a foreign or malformed one', () => {
    const tracker = new PassRateTracker({ discount: 0.1 });
    tracker.observe([{ problem: problem('a'), rewards: [1, 0, 0] }]);
    const copy = new PassRateTracker({ discount: 0.1 });
    copy.load(JSON.parse(JSON.stringify(tracker.state())));
    expect(copy.estimatedPassRate(problem('a'))).toBe(tracker.estimatedPassRate(problem('a')));
    expect(copy.estimatedPassRate(problem('z'))).toBe(tracker.estimatedPassRate(problem('z')));
    expect(() => copy.load({ selector: 'bots' })).toThrow(/pass-rate tracker state/);
    expect(() => copy.load({ kind: 'pass-rate-tracker', step: 1, problems: [] })).toThrow(/malformed/);
    expect(() => new PassRateTracker({ discount: 1 })).toThrow(RangeError);
    expect(() => new PassRateTracker({ priorStrength: 0 })).toThrow(RangeError);
  });
});
