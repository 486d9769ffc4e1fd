// SAPO against numbers worked out by hand from the formula verl's compute_policy_loss_sapo implements
// (r = exp(clamp(logp − logp_old, ±20)); τ = τ_pos if A > 0 else τ_neg; ℓ = −A·σ(τ(r − 1))·4/τ;
// seq-mean-token-mean).
import { describe, expect, it } from 'vitest';
import { policyLosses } from './index.ts';
import type { LossSequence } from './policy-loss.ts';

const sapo = policyLosses.get('sapo');
const sigmoid = (x: number) => 1 / (1 + Math.exp(-x));

describe('sapo (soft gate)', () => {
  it('on-policy (r = 1) the gate is 2/τ·… and its slope 1: weights −A/|y|, the REINFORCE gradient', () => {
    const sequences: LossSequence[] = [
      { logprobs: [-1, -2], oldLogprobs: [-1, -2], advantages: 0.5, mask: [1, 1] },
    ];
    const result = sapo.compute(sequences);
    // σ(0)·4/τ_pos = 2; ℓ = −0.5·2 per token; seq-mean-token-mean of a constant is the constant
    expect(result.loss).toBeCloseTo(-1, 12);
    expect(result.weights[0]).toEqual([-0.25, -0.25]);
    expect(result.metrics['losses/clipfrac']).toBe(0);
  });

  it('A = 1 at r = e^0.2: ℓ = −2.220503, ∂ℓ/∂logp = −1.206556 (τ_pos 1)', () => {
    // σ(e^0.2 − 1) = σ(0.2214028) = 0.5551257; 4·σ = 2.2205028; 4σ(1 − σ)·r = 1.2065562
    const sequences: LossSequence[] = [{ logprobs: [-1], oldLogprobs: [-1.2], advantages: 1, mask: [1] }];
    const result = sapo.compute(sequences);
    expect(result.loss).toBeCloseTo(-2.220502754, 8);
    expect(result.weights[0][0]).toBeCloseTo(-1.20655616, 8);
  });

  it('A = −2 at r = e^−0.3 uses τ_neg 1.05; two sequences average per sequence', () => {
    const tau = 1.05;
    const r = Math.exp(-0.3);
    const s = sigmoid(tau * (r - 1));
    const sequences: LossSequence[] = [
      { logprobs: [-1.3], oldLogprobs: [-1], advantages: -2, mask: [1] },
      { logprobs: [-1, -1, -4], oldLogprobs: [-1, -1, -1], advantages: 1, mask: [1, 1, 0] },
    ];
    const result = sapo.compute(sequences);
    // sequence 0: 2·σ·4/τ = 3.2943359; sequence 1: −2 (r = 1, τ_pos); the masked token counts nowhere
    expect((2 * s * 4) / tau).toBeCloseTo(3.294335929, 8);
    expect(result.loss).toBeCloseTo(((2 * s * 4) / tau - 2) / 2, 12);
    expect(result.weights[0][0]).toBeCloseTo((2 * 4 * s * (1 - s) * r) / 2, 12);
    expect(result.weights[1]).toEqual([-0.25, -0.25, 0]);
    // with τ_neg = τ_pos the weight changes: the asymmetry is read from the sign of A
    const symmetric = sapo.compute(sequences, { tauNegative: 1 });
    expect(symmetric.weights[0][0]).not.toBeCloseTo(result.weights[0][0], 6);
  });

  it('clamps the log ratio at ±20 (zero gradient there) and refuses unknown options', () => {
    const far = sapo.compute([{ logprobs: [0], oldLogprobs: [-25], advantages: 1, mask: [1] }]);
    expect(Math.abs(far.weights[0][0])).toBe(0);
    expect(() => sapo.resolveOptions({ tau: 1 })).toThrow(/unknown key 'tau'.*tauPositive, tauNegative/);
  });
});
