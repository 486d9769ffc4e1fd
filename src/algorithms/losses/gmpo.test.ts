// GMPO against numbers worked out by hand from the formula verl's compute_policy_loss_geo_mean implements
// (m_t = sgn(A)·min(sgn(A)·l_t, sgn(A)·clamp(l_t, −ε_low, ε_high)); ρ = exp(mean m); loss = mean_i −Ā_i·ρ_i).
import { describe, expect, it } from 'vitest';
import { policyLosses } from './index.ts';
import type { LossSequence } from './policy-loss.ts';

const gmpo = policyLosses.get('gmpo');

/** A sequence with log-ratios l (old = logp − l) and one advantage. */
function sequence(logRatios: number[], advantage: number): LossSequence {
  const logprobs = logRatios.map((_, t) => -1 - t);
  return {
    logprobs,
    oldLogprobs: logprobs.map((logprob, t) => logprob - logRatios[t]),
    advantages: advantage,
    mask: logRatios.map(() => 1),
  };
}

describe('gmpo (geometric mean of token-clipped ratios)', () => {
  it('A > 0 holds the high side at 0.4 and follows the low side; A < 0 the reverse (ε 0.4)', () => {
    // l = (0.1, 0.6, −0.5). A = 1: m = (0.1, 0.4, −0.5) → ρ = e^0 = 1; the 0.6 token is held (weight 0).
    // A = −1: m = (0.1, 0.6, −0.4) → ρ = e^0.1 = 1.1051709; the −0.5 token is held.
    const result = gmpo.compute([sequence([0.1, 0.6, -0.5], 1), sequence([0.1, 0.6, -0.5], -1)]);
    const rho = Math.exp(0.1);
    expect(result.loss).toBeCloseTo((-1 + rho) / 2, 12);
    // ∂/∂logp_t of (1/B)·(−Ā ρ) = −Ā·ρ/(B·|y|) where m_t follows l_t
    expect(result.weights[0][0]).toBeCloseTo(-1 / 6, 12);
    expect(result.weights[0][1]).toBe(0);
    expect(result.weights[0][2]).toBeCloseTo(-1 / 6, 12);
    expect(result.weights[1][0]).toBeCloseTo(rho / 6, 12);
    expect(result.weights[1][1]).toBeCloseTo(rho / 6, 12);
    expect(result.weights[1][2]).toBe(0);
    // verl's clipfrac counts tokens outside the range, whichever branch the min took: 2 of 6 on each side
    expect(result.metrics['losses/clipfrac_high']).toBeCloseTo(2 / 6, 12);
    expect(result.metrics['losses/clipfrac_low']).toBeCloseTo(2 / 6, 12);
    expect(result.metrics['losses/sequence_ratio_mean']).toBeCloseTo((1 + rho) / 2, 12);
  });

  it('the geometric mean, not the arithmetic one: ratios e^0.3 and e^−0.3 give ρ = 1', () => {
    const result = gmpo.compute([sequence([0.3, -0.3], 2)]);
    expect(result.loss).toBeCloseTo(-2, 12);
    // the arithmetic mean of the ratios (GRPO's) would be cosh(0.3) = 1.0453
    expect(result.metrics['losses/ratio_mean']).toBeCloseTo(Math.cosh(0.3), 12);
  });

  it('per-token advantages enter as their masked mean; a masked token counts nowhere', () => {
    const logprobs = [-1, -2, -3];
    const result = gmpo.compute([
      { logprobs, oldLogprobs: logprobs, advantages: [1, 3, 100], mask: [1, 1, 0] },
    ]);
    // Ā = 2, ρ = 1: loss −2, weights −2/2 on the two loss tokens
    expect(result.loss).toBeCloseTo(-2, 12);
    expect(result.weights[0]).toEqual([-1, -1, 0]);
  });

  it('refuses unknown options with the valid keys', () => {
    expect(() => gmpo.resolveOptions({ clipRatio: 0.4 })).toThrow(/unknown key 'clipRatio'.*epsilonLow/);
  });
});
