// OREAL against numbers worked out by hand from the authors' train_oreal.py (wo_tokenrm config:
// pos_mult_adv, positive_loss_factor 1, negative_loss_factor 0.5): positives −A·log π summed over their
// tokens / N⁺; negatives −0.5·A·exp(logp − sg logp) summed / N⁻ (reported here as its REINFORCE
// surrogate −0.5·A·log π, whose derivative is the same).
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../core/errors.ts';
import { policyLosses } from './index.ts';
import type { LossSequence } from './policy-loss.ts';

const oreal = policyLosses.get('oreal');

function sequence(logprobs: number[], reward: number, advantage: number, mask?: number[]): LossSequence {
  return { logprobs, advantages: advantage, mask: mask ?? logprobs.map(() => 1), reward };
}

describe('oreal', () => {
  // A group of 3 by RLOO on 0/1 rewards [1, 0, 0]: A = 1 − 0 = 1 for the correct one, 0 − ½ = −½ for
  // each wrong one. Tokens: 2 on the positive (N⁺ = 2), 3 + 1 on the negatives (N⁻ = 4; one masked out).
  const batch = [
    sequence([-0.5, -1.5], 1, 1),
    sequence([-1, -2, -3], 0, -0.5),
    sequence([-0.2, -9], 0, -0.5, [1, 0]),
  ];

  it('positives −A·log π / N⁺, negatives −0.5·A / N⁻ (value and weight)', () => {
    const result = oreal.compute(batch, {});
    // Positive tokens: weight −1·1/2 each; value (0.5 + 1.5)/2 = 1.
    expect(result.weights[0][0]).toBeCloseTo(-0.5, 12);
    expect(result.weights[0][1]).toBeCloseTo(-0.5, 12);
    // Negative tokens: weight −0.5·(−0.5)/4 = 0.0625 each, the masked one 0; value 0.0625·(−1 − 2 − 3 − 0.2).
    for (const weight of result.weights[1]) expect(weight).toBeCloseTo(0.0625, 12);
    expect(result.weights[2]).toEqual([expect.closeTo(0.0625, 12), 0]);
    expect(result.loss).toBeCloseTo(1 + 0.0625 * -6.2, 12);
    expect(result.metrics['losses/oreal_positive_token_frac']).toBeCloseTo(2 / 6, 12);
  });

  it('the weights are the derivative of the reported value on both classes', () => {
    const h = 1e-6;
    const shift = (i: number, t: number, delta: number) =>
      oreal.compute(
        batch.map((s, k) =>
          k === i ? { ...s, logprobs: s.logprobs.map((lp, u) => (u === t ? lp + delta : lp)) } : s,
        ),
        {},
      ).loss;
    const weights = oreal.compute(batch, {}).weights;
    expect((shift(0, 1, h) - shift(0, 1, -h)) / (2 * h)).toBeCloseTo(weights[0][1], 6);
    expect((shift(1, 2, h) - shift(1, 2, -h)) / (2 * h)).toBeCloseTo(weights[1][2], 6);
  });

  it('options: factors, multiplyAdvantage false, classNormalise false; a missing reward is refused', () => {
    const result = oreal.compute(batch, {
      positiveLossFactor: 2,
      negativeLossFactor: 1,
      multiplyAdvantage: false,
    });
    expect(result.weights[0][0]).toBeCloseTo(-2 / 2, 12);
    expect(result.weights[1][0]).toBeCloseTo(0.5 / 4, 12);
    // Every sample correct: the positives' N⁺ is all the tokens, and no negative term.
    const allCorrect = oreal.compute([sequence([-1, -1], 1, 0.5), sequence([-1], 1, -1)], {});
    expect(allCorrect.weights).toEqual([
      [expect.closeTo(-0.5 / 3, 12), expect.closeTo(-0.5 / 3, 12)],
      [expect.closeTo(1 / 3, 12)],
    ]);
    // Without the class normalisers, token-mean over all 6 tokens: −1/6 on a positive, 0.25/6 on a negative.
    const plain = oreal.compute(batch, { classNormalise: false }).weights;
    expect(plain[0][0]).toBeCloseTo(-1 / 6, 12);
    expect(plain[1][0]).toBeCloseTo(0.25 / 6, 12);
    expect(() => oreal.compute(batch, { classNormalize: false })).toThrow(ConfigError);
    expect(() => oreal.compute([{ ...batch[0], reward: undefined }], {})).toThrow(
      /sequence 0: loss 'oreal' needs/,
    );
  });
});
