import { describe, expect, it } from 'vitest';
import { ConfigError } from '../core/errors.ts';
import {
  type KlSequence,
  klDerivative,
  klEstimate,
  klEstimators,
  klLossPenalty,
  klRewardPenalty,
  referenceKl,
} from './kl.ts';
import { aggregationModes } from './losses/aggregation.ts';
import { addWeights } from './losses/index.ts';

describe('KL estimators', () => {
  it('match hand values at logp = −1, logp_ref = −2 (log r = −1)', () => {
    // k1 = 1; k2 = ½; k3 = e^{−1} − 1 + 1 = e^{−1} = 0.367879; ∂k3 = 1 − e^{−1} = 0.632121
    expect(klEstimate(-1, -2, 'k1')).toBe(1);
    expect(klEstimate(-1, -2, 'k2')).toBe(0.5);
    expect(klEstimate(-1, -2, 'k3')).toBeCloseTo(0.367879441, 9);
    expect(klDerivative(-1, -2, 'k1')).toBe(1);
    expect(klDerivative(-1, -2, 'k2')).toBe(1);
    expect(klDerivative(-1, -2, 'k3')).toBeCloseTo(0.632120559, 9);
    for (const estimator of klEstimators) expect(klEstimate(-0.7, -0.7, estimator)).toBe(0);
  });

  it('derivatives equal central differences', () => {
    const h = 1e-6;
    for (const estimator of klEstimators) {
      for (const [logprob, refLogprob] of [
        [-1, -2],
        [-3, -0.5],
        [-0.2, -0.9],
      ]) {
        const numeric =
          (klEstimate(logprob + h, refLogprob, estimator) - klEstimate(logprob - h, refLogprob, estimator)) /
          (2 * h);
        expect(klDerivative(logprob, refLogprob, estimator)).toBeCloseTo(numeric, 7);
      }
    }
  });

  it('k3 is clamped at 10 like verl, with zero derivative there', () => {
    // log r = 20 → e^20 − 21 ≫ 10
    expect(klEstimate(-21, -1, 'k3')).toBe(10);
    expect(klDerivative(-21, -1, 'k3')).toBe(0);
  });
});

const sequences: KlSequence[] = [
  { logprobs: [-1, -0.5, -2], refLogprobs: [-2, -0.5, -1], mask: [1, 1, 0] },
  { logprobs: [-0.3], refLogprobs: [-0.1], mask: [1] },
];

describe('KL as a loss penalty', () => {
  it('k1 with token-mean: weights β/3 on each masked-in token, loss β·mean(k1)', () => {
    // k1 = 1, 0, (masked), −0.2 → mean over 3 tokens = 0.8/3
    const result = klLossPenalty(sequences, { estimator: 'k1', coefficient: 0.1 });
    expect(result.loss).toBeCloseTo((0.1 * 0.8) / 3, 12);
    expect(result.weights[0]).toEqual([0.1 / 3, 0.1 / 3, 0]);
    expect(result.metrics['losses/kl']).toBeCloseTo(0.8 / 3, 12);
  });

  it('weights are the derivative of the penalty for every estimator and aggregation', () => {
    const h = 1e-6;
    for (const estimator of klEstimators) {
      for (const aggregation of aggregationModes) {
        const options = { estimator, aggregation, coefficient: 0.5 };
        const { weights } = klLossPenalty(sequences, options);
        for (let i = 0; i < sequences.length; i++) {
          for (let t = 0; t < sequences[i].logprobs.length; t++) {
            const shifted = (delta: number) =>
              sequences.map((sequence, j) =>
                j === i
                  ? { ...sequence, logprobs: sequence.logprobs.map((v, s) => (s === t ? v + delta : v)) }
                  : sequence,
              );
            const numeric =
              (klLossPenalty(shifted(h), options).loss - klLossPenalty(shifted(-h), options).loss) / (2 * h);
            expect(weights[i][t]).toBeCloseTo(numeric, 7);
          }
        }
      }
    }
  });

  it('adds to policy weights element-wise and rejects unknown options', () => {
    const penalty = klLossPenalty(sequences, { estimator: 'k1', coefficient: 0.3 });
    expect(addWeights([[1, 1, 1], [1]], penalty.weights)).toEqual([[1.1, 1.1, 1], [1.1]]);
    expect(() => klLossPenalty(sequences, { beta: 1 })).toThrow(ConfigError);
  });
});

describe('KL as a reward penalty', () => {
  it('k1: per-token −β·k and the sequence sum', () => {
    const penalty = klRewardPenalty(sequences, { coefficient: 0.5 });
    expect(penalty.perToken[0]).toEqual([-0.5, -0, 0]);
    expect(penalty.perToken[1][0]).toBeCloseTo(0.1, 12);
    expect(penalty.perSequence[0]).toBeCloseTo(-0.5, 12);
    expect(penalty.perSequence[1]).toBeCloseTo(0.1, 12);
  });
});

describe('referenceKl (algorithm.kl.monitor)', () => {
  it('sums k1 per sequence over unmasked tokens and averages k1, k3 per token', () => {
    // sequence 1: log r = −1 on both tokens (k1 1 + 1, k3 e^{−1} twice); sequence 2: its second token masked
    // out (a tool output), the first has logp = logp_ref (k1 = k3 = 0)
    const kl = referenceKl([
      { logprobs: [-1, -1], refLogprobs: [-2, -2], mask: [1, 1] },
      { logprobs: [-0.5, -1], refLogprobs: [-0.5, -9], mask: [1, 0] },
    ]);
    expect(kl.sequence).toBe((2 + 0) / 2);
    expect(kl.tokenK1).toBe(2 / 3);
    expect(kl.tokenK3).toBeCloseTo((2 * Math.exp(-1)) / 3, 12);
    expect(referenceKl([])).toEqual({ sequence: 0, tokenK1: 0, tokenK3: 0 });
    expect(() => referenceKl([{ logprobs: [-1], refLogprobs: [], mask: [1] }])).toThrow(RangeError);
  });
});
