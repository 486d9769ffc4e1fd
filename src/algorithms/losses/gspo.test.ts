// GSPO against numbers worked out by hand from the formula verl's compute_policy_loss_gspo implements
// (log s_i = masked mean of logp − logp_old; s_{i,t} = exp(logp − sg[logp] + sg[log s_i]), clamped above
// at e^10; ℓ = max(−A·s, −A·clip(s, 1−ε_low, 1+ε_high)); seq-mean-token-mean).
import { describe, expect, it } from 'vitest';
import { policyLosses } from './index.ts';
import type { LossSequence } from './policy-loss.ts';

const gspo = policyLosses.get('gspo');

describe('gspo (sequence-level ratio, GSPO-token form)', () => {
  it('a sequence whose token ratios cancel has s = 1: loss −A, weights −A/|y| per token', () => {
    // log-ratios +0.1 and −0.1 → mean 0 → s = 1, inside [1 − 3e-4, 1 + 4e-4]
    const sequences: LossSequence[] = [
      { logprobs: [-1, -2], oldLogprobs: [-1.1, -1.9], advantages: 1, mask: [1, 1] },
    ];
    const result = gspo.compute(sequences);
    expect(result.loss).toBeCloseTo(-1, 12);
    expect(result.weights[0][0]).toBeCloseTo(-0.5, 12);
    expect(result.weights[0][1]).toBeCloseTo(-0.5, 12);
    expect(result.metrics['losses/clipfrac']).toBe(0);
    expect(result.metrics['losses/sequence_ratio_mean']).toBeCloseTo(1, 12);
    // token-level diagnostics are the token ratios', not the sequence's: mean(e^0.1, e^−0.1)
    expect(result.metrics['losses/ratio_mean']).toBeCloseTo((Math.exp(0.1) + Math.exp(-0.1)) / 2, 12);
  });

  it('s = e^0.001 > 1 + 4e-4: clipped for A > 0 (weight 0), not for A < 0 (weight −A·s/|y|); two sequences', () => {
    const s = Math.exp(0.001);
    const drift = (advantage: number): LossSequence => ({
      logprobs: [-1, -2, -3],
      oldLogprobs: [-1.001, -2.001, -3.001],
      advantages: advantage,
      mask: [1, 1, 1],
    });
    const result = gspo.compute([drift(1), drift(-1)]);
    // sequence 0: −1·1.0004 on the clipped branch; sequence 1: −(−1)·s; seq-mean-token-mean: mean of the two
    expect(result.loss).toBeCloseTo((-1.0004 + s) / 2, 12);
    expect(result.weights[0]).toEqual([0, 0, 0]);
    for (const weight of result.weights[1]) expect(weight).toBeCloseTo(s / (2 * 3), 12);
    expect(result.metrics['losses/clipfrac_high']).toBeCloseTo(3 / 6, 12);
  });

  it('a masked token counts in neither the ratio nor the mean; the log ratio is clamped at 10', () => {
    const sequences: LossSequence[] = [
      { logprobs: [-1, -1, -5], oldLogprobs: [-1, -1.2, -1], advantages: -2, mask: [1, 1, 0] },
    ];
    // log s = mean(0, 0.2) = 0.1 (the masked −4 is left out); A < 0: unclipped −A·s > −A·clip(s)
    const s = Math.exp(0.1);
    const result = gspo.compute(sequences);
    expect(result.loss).toBeCloseTo(2 * s, 12);
    expect(result.weights[0][0]).toBeCloseTo((2 * s) / 2, 12);
    expect(result.weights[0][2]).toBe(0);
    const huge: LossSequence[] = [{ logprobs: [0], oldLogprobs: [-30], advantages: -1, mask: [1] }];
    const clamped = gspo.compute(huge);
    expect(clamped.loss).toBeCloseTo(Math.exp(10), 6);
    expect(clamped.weights[0][0]).toBe(0);
  });

  it('refuses unknown options with the valid keys, and needs the old log-probs', () => {
    expect(() => gspo.resolveOptions({ epsilon: 0.2 })).toThrow(
      /unknown key 'epsilon'.*allowed: .*epsilonLow, epsilonHigh/,
    );
    expect(() => gspo.compute([{ logprobs: [-1], advantages: 1, mask: [1] }])).toThrow(/oldLogprobs/);
  });
});
