// NFT against numbers worked out by hand from the authors' dp_actor.py (ratio_type token, normalize 1,
// clamp_negative 1, clamp_positive 0, neg_weight 1): positive −(1 − r̂)·log R; negative −(1 − r̂)·log ĉ with
// c = (1 − r̂R)/(1 − r̂) clamped below at 1 straight-through (value clamped, gradient of c kept).
import { describe, expect, it } from 'vitest';
import { policyLosses } from './index.ts';
import type { LossSequence } from './policy-loss.ts';

const nft = policyLosses.get('nft');

/** One sequence of log-ratios `l` (old = logp − l), reward, group rewards. */
function sequence(l: number[], reward: number, groupRewards: number[]): LossSequence {
  const logprobs = l.map((_, t) => -1 - t);
  return {
    logprobs,
    oldLogprobs: logprobs.map((lp, t) => lp - l[t]),
    advantages: 0,
    mask: l.map(() => 1),
    reward,
    groupRewards,
  };
}

describe('nft', () => {
  it('on-policy the weights are −(1 − r̂) and +r̂ (GRPO with 0/1 rewards, up to its 1/std)', () => {
    const group = [1, 0, 0, 1]; // r̂ = 0.5
    const result = nft.compute([sequence([0, 0], 1, group), sequence([0, 0], 0, group)], {
      aggregation: 'token-mean',
    });
    expect(result.loss).toBeCloseTo(0, 12);
    for (const weight of result.weights[0]) expect(weight).toBeCloseTo(-0.5 / 4, 12);
    for (const weight of result.weights[1]) expect(weight).toBeCloseTo(0.5 / 4, 12);
  });

  it('a wrong sample: unclamped at R = e^−0.2, straight-through at R = e^0.3 (r̂ = 0.25)', () => {
    const group = [1, 0, 0, 0];
    // c = (1 − 0.25·0.818731)/0.75 = 1.060423: ℓ = −0.75·log c = −0.044001, ∂ℓ/∂logp = r̂R/c = 0.193020
    const below = nft.compute([sequence([-0.2], 0, group)], { aggregation: 'token-mean' });
    expect(below.loss).toBeCloseTo(-0.044000972, 8);
    expect(below.weights[0][0]).toBeCloseTo(0.193019835, 8);
    expect(below.metrics['losses/clipfrac_low']).toBe(0);
    // c = 0.883380 < 1: the value is held at −log 1 = 0, the gradient r̂R/1 = 0.337465 kept
    const above = nft.compute([sequence([0.3], 0, group)], { aggregation: 'token-mean' });
    expect(above.loss).toBeCloseTo(0, 12);
    expect(above.weights[0][0]).toBeCloseTo(0.337464702, 8);
    expect(above.metrics['losses/clipfrac_low']).toBe(1);
  });

  it('a correct sample: −(1 − r̂)·log R, clamped above at log R = 10; r̂ clamped into [0.02, 0.98]', () => {
    const result = nft.compute([sequence([0.3, 11], 1, [1, 0, 0, 0])], { aggregation: 'seq-mean-token-sum' });
    // seq-mean-token-sum with B = 1: the sum of the two tokens' terms
    expect(result.loss).toBeCloseTo(-0.75 * 0.3 - 0.75 * 10, 12);
    expect(result.weights[0]).toEqual([-0.75, 0]);
    // every member correct: r̂ = 0.98, weight −(1 − 0.98)
    const all = nft.compute([sequence([0], 1, [1, 1])], { aggregation: 'token-mean' });
    expect(all.weights[0][0]).toBeCloseTo(-0.02, 12);
    expect(all.metrics['losses/nft_correct_rate_mean']).toBeCloseTo(0.98, 12);
  });

  it('negativeWeight 0 is RFT on the positives; missing rewards are refused naming the sequence', () => {
    const group = [1, 0];
    const rft = nft.compute([sequence([0.1], 1, group), sequence([0.1], 0, group)], {
      aggregation: 'token-mean',
      negativeWeight: 0,
    });
    expect(rft.weights[1][0]).toBe(0);
    expect(rft.weights[0][0]).toBeCloseTo(-0.5 / 2, 12);
    const bare = { ...sequence([0], 1, group), reward: undefined };
    expect(() => nft.compute([bare])).toThrow(/sequence 0: loss 'nft' needs the sequence's reward/);
    expect(() => nft.resolveOptions({ clampPositive: 0 })).toThrow(/unknown key 'clampPositive'/);
  });
});
