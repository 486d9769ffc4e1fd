import { describe, expect, it } from 'vitest';
import { ConfigError } from '../core/errors.ts';
import { allocateRollouts } from './rollout-budget.ts';

describe('allocateRollouts', () => {
  it('splits in proportion to p(1−p) and rounds by largest remainder', () => {
    // Weights 0.25, 0.09, 0, 0.25 (sum 0.59); 20 − 4·2 = 12 extra → 5.0847, 1.8305, 0, 5.0847.
    // Shares 7.08, 3.83, 2, 7.08 → floors 7, 3, 2, 7 (19) → the largest remainder (0.83) gets the last one.
    expect(allocateRollouts({ passRates: [0.5, 0.9, 0, 0.5], total: 20, min: 2, max: 10 })).toEqual([
      7, 4, 2, 7,
    ]);
  });

  it('caps at max and hands the excess to the others', () => {
    // 0.5 would get 2 + 15.39 > 12 → capped at 12; the remaining 6 go to the second problem.
    expect(allocateRollouts({ passRates: [0.5, 0.01], total: 20, min: 2, max: 12 })).toEqual([12, 8]);
  });

  it('shares equally when no problem is uncertain, and always preserves the total', () => {
    expect(allocateRollouts({ passRates: [1, 0, 1], total: 10, min: 2 })).toEqual([4, 3, 3]);
    const rates = [0.1, 0.2, 0.33, 0.5, 0.77, 0.93, 0.5];
    for (const total of [14, 31, 50, 99]) {
      const shares = allocateRollouts({ passRates: rates, total, min: 2, max: 20 });
      expect(shares.reduce((sum, value) => sum + value, 0)).toBe(total);
      expect(shares.every((value) => value >= 2 && value <= 20)).toBe(true);
    }
  });

  it('rejects an infeasible budget', () => {
    expect(() => allocateRollouts({ passRates: [0.5, 0.5], total: 3, min: 2 })).toThrow(ConfigError);
  });
});
