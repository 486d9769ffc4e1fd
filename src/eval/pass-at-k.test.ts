import { describe, expect, it } from 'vitest';
import { ConfigError } from '../core/errors.ts';
import { meanPassAtK, passAtK, passAtKCurve, passAtKFromCorrect, powersOfTwoUpTo } from './pass-at-k.ts';

describe('unbiased pass@k', () => {
  it('n=5, c=2: pass@1 = 0.4, pass@2 = 1 − C(3,2)/C(5,2) = 1 − 3/10 = 0.7, pass@4 = 1 (n − c < k)', () => {
    expect(passAtK(5, 2, 1)).toBeCloseTo(0.4, 12);
    expect(passAtK(5, 2, 2)).toBeCloseTo(0.7, 12);
    expect(passAtK(5, 2, 4)).toBe(1);
    expect(passAtKCurve(5, 2)).toEqual({ 1: expect.closeTo(0.4, 12), 2: expect.closeTo(0.7, 12), 4: 1 });
  });

  it('n=8, c=3, k=4: 1 − C(5,4)/C(8,4) = 1 − 5/70 = 0.928571', () => {
    expect(passAtK(8, 3, 4)).toBeCloseTo(1 - 5 / 70, 12);
  });

  it('c = 0 gives 0 and c = n gives 1 for every k', () => {
    for (const k of [1, 2, 4]) {
      expect(passAtK(4, 0, k)).toBe(0);
      expect(passAtK(4, 4, k)).toBe(1);
    }
  });

  it('stays accurate for large n (product form, no factorials)', () => {
    // n=1000, c=1, k=1 → 0.001; k=500 → 0.5
    expect(passAtK(1000, 1, 1)).toBeCloseTo(0.001, 12);
    expect(passAtK(1000, 1, 500)).toBeCloseTo(0.5, 12);
  });

  it('k > n is a ConfigError; bad n or c is a RangeError', () => {
    expect(() => passAtK(4, 1, 8)).toThrow(ConfigError);
    expect(() => passAtK(4, 1, 8)).toThrow(/pass@8 needs at least 8 samples/);
    expect(() => passAtK(4, 5, 1)).toThrow(RangeError);
    expect(() => passAtK(0, 0, 1)).toThrow(RangeError);
  });

  it('helpers: powers of two, from flags, mean over problems', () => {
    expect(powersOfTwoUpTo(1)).toEqual([1]);
    expect(powersOfTwoUpTo(16)).toEqual([1, 2, 4, 8, 16]);
    expect(powersOfTwoUpTo(12)).toEqual([1, 2, 4, 8]);
    expect(passAtKFromCorrect([true, false, false, true, false], 2)).toBeCloseTo(0.7, 12);
    expect(
      meanPassAtK(
        [
          { n: 5, c: 2 },
          { n: 4, c: 0 },
        ],
        2,
      ),
    ).toBeCloseTo(0.35, 12);
  });
});
