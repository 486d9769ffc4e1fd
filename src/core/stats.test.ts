import { describe, expect, it } from 'vitest';
import { sampleStd, tInterval } from './stats.ts';

describe('stats over seeds', () => {
  it('sample standard deviation uses n − 1 and is 0 below two values', () => {
    expect(sampleStd([2, 4, 4, 4, 5, 5, 7, 9])).toBeCloseTo(Math.sqrt(32 / 7), 12);
    expect(sampleStd([3])).toBe(0);
    expect(sampleStd([])).toBe(0);
  });

  it('three seeds: the interval half-width is t(2) = 4.303 times the standard error', () => {
    const interval = tInterval([0.6, 0.7, 0.8]);
    expect(interval.mean).toBeCloseTo(0.7, 12);
    expect(interval.halfWidth).toBeCloseTo(4.303 * (0.1 / Math.sqrt(3)), 12);
  });
});
