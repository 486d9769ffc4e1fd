import { describe, expect, it } from 'vitest';
import { areaUnderCurve, stepsToTarget, tInterval, tQuantile975 } from './stats.ts';

describe('simulation statistics', () => {
  it('95% t-interval: [1, 2, 3, 4, 5] → 3 ± 2.776·√(2.5/5) = 3 ± 1.962928', () => {
    const interval = tInterval([1, 2, 3, 4, 5]);
    expect(interval.mean).toBe(3);
    expect(interval.halfWidth).toBeCloseTo(2.776 * Math.sqrt(0.5), 9);
    expect(interval.halfWidth).toBeCloseTo(1.962928, 5);
    expect(tInterval([7]).halfWidth).toBe(0);
    expect(tQuantile975(1)).toBe(12.706);
  });

  it('AUC is the mean of the curve; steps to target are 1-based', () => {
    expect(areaUnderCurve([0.2, 0.4, 0.9])).toBeCloseTo(0.5, 12);
    expect(stepsToTarget([0.2, 0.4, 0.9], 0.8)).toBe(3);
    expect(stepsToTarget([0.2, 0.4], 0.8)).toBe('never');
  });
});
