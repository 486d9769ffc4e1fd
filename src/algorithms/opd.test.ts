// The OPD term by hand: adv_t = task + coef·(lp_teacher − lp_sampler), the discounted future sum for
// γ > 0 with the mask re-applied, task advantage off, and the KL sums behind teacher/kl.
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../core/errors.ts';
import { discountedFutureSum, opdAdvantages } from './opd.ts';

const sequence = {
  taskAdvantage: 0.5,
  samplerLogprobs: [-1, -2, -0.5],
  teacherLogprobs: [-0.5, -3, -0.5],
  mask: [1, 1, 1],
};

describe('opdAdvantages', () => {
  it('adds coef·(teacher − sampler) per token to the task advantage', () => {
    // k = sampler − teacher = (−0.5, 1, 0); term = −coef·k = (0.5, −1, 0) at coef 1.
    const result = opdAdvantages([sequence]);
    expect(result.advantages[0]).toEqual([1, -0.5, 0.5]);
    expect(result.klSum).toBeCloseTo(0.5, 12);
    expect(result.tokens).toBe(3);
  });

  it('scales by coef and drops the task advantage when taskAdvantage is off', () => {
    const result = opdAdvantages([sequence], { coef: 2, taskAdvantage: false });
    expect(result.advantages[0]).toEqual([1, -2, 0]);
  });

  it('sums the discounted future term for γ > 0 and keeps masked tokens at the task advantage', () => {
    // Token 1 masked (an expert token): its k is not counted, its term is 0 before and after the sum.
    const masked = { ...sequence, mask: [1, 0, 1] };
    // Terms (0.5, 0, 0) with token 2 changed: teacher −1 vs sampler −0.5 → term −0.5: (0.5, 0, −0.5).
    const result = opdAdvantages([{ ...masked, teacherLogprobs: [-0.5, -3, -1] }], { discount: 0.5 });
    // Discounted: t2 = −0.5; t1 = 0 + 0.5·(−0.5) = −0.25 → masked back to 0; t0 = 0.5 + 0.5·(−0.25) = 0.375.
    expect(result.advantages[0]).toEqual([0.5 + 0.375, 0.5, 0.5 - 0.5]);
    expect(result.tokens).toBe(2);
    expect(result.klSum).toBeCloseTo(-0.5 + 0.5, 12);
  });

  it('discountedFutureSum is the cookbook recursion', () => {
    expect(discountedFutureSum([1, 2, 3], 0.5)).toEqual([1 + 0.5 * (2 + 0.5 * 3), 2 + 0.5 * 3, 3]);
    expect(discountedFutureSum([1, 2, 3], 0)).toEqual([1, 2, 3]);
  });

  it('refuses misaligned sequences and unknown options', () => {
    expect(() => opdAdvantages([{ ...sequence, teacherLogprobs: [-1, -1] }])).toThrow(/teacherLogprobs 2/);
    expect(() => opdAdvantages([sequence], { coeff: 1 })).toThrow(ConfigError);
  });
});
