import { describe, expect, it } from 'vitest';
import { ConfigError, UnknownNameError } from '../../core/errors.ts';
import { aggregationModes } from './aggregation.ts';
import { checkLoss } from './conformance.ts';
import { type LossSequence, policyLosses } from './index.ts';

describe('every loss × aggregation passes checkLoss: weights are the derivative of the scalar loss', () => {
  for (const name of policyLosses.names()) {
    it(name, () => {
      const options = aggregationModes.map((aggregation) => ({
        aggregation,
        tokenSumNormaliser: aggregation === 'seq-mean-token-sum-norm' ? 8 : undefined,
      }));
      // GSPO: its defaults (a range of ±4e-4 around 1) clip every ratio of the batch; a wide range too.
      if (name === 'gspo') options.push(...options.map((o) => ({ ...o, epsilonLow: 0.5, epsilonHigh: 0.5 })));
      // Clip-Cov and KL-Cov at their defaults act on one token of the batch; also on a third of them, and
      // (Clip-Cov) with every covariance a candidate.
      if (name === 'clip-cov') options.push(...options.map((o) => ({ ...o, ratio: 0.3, lowerBound: -10 })));
      if (name === 'kl-cov') options.push(...options.map((o) => ({ ...o, ratio: 0.3 })));
      // NFT's straight-through clamp makes its weights differ from its value's derivative where the clamp
      // acts (a wrong sample with R > 1, which this batch has): checked here with every sample counted
      // correct (positiveReward 0); nft.test.ts checks the negative branch by hand and update-policy's
      // gradient test its straight-through gradient.
      if (name === 'nft')
        options.splice(0, options.length, ...options.map((o) => ({ ...o, positiveReward: 0 })));
      // CISPO's clipped ratio is a stop-gradient: move log π_old with log π so the ratio stays fixed.
      // GSPO is a sequence-level loss: one advantage per sequence.
      const report = checkLoss(policyLosses.get(name), {
        options,
        moveOldLogprobs: name === 'cispo',
        sequenceAdvantages: name === 'gspo',
        rewards: name === 'nft' || name === 'oreal',
        pairs: name === 'online-dpo',
      });
      expect(report.checks).toContain(
        'each weight is the derivative of the loss with respect to its token log-prob',
      );
      expect(report.checks).toContain('an all-masked batch gives loss 0 and zero weights');
    });
  }

  it('fails a loss whose weights are not its derivative, with the place', () => {
    const ppo = policyLosses.get('ppo-clip');
    const halved = {
      ...ppo,
      compute: (sequences: readonly LossSequence[], options?: unknown) => {
        const result = ppo.compute(sequences, options);
        return { ...result, weights: result.weights.map((row) => row.map((weight) => weight / 2)) };
      },
    };
    expect(() => checkLoss(halved)).toThrow(
      "loss 'ppo-clip': each weight is the derivative of the loss with respect to its token log-prob (sequence 0, token 0",
    );
    const nan = { ...ppo, compute: () => ({ weights: [[0, 0]], loss: Number.NaN, metrics: {} }) };
    expect(() => checkLoss(nan)).toThrow('returns one weight per token of each sequence');
  });
});

// Hand example. Sequence 1: A = +1, ratios (1, 1.25, 1.5). Sequence 2: A = −1, ratios (0.5, 1), and a
// masked third token. ε_low 0.2, ε_high 0.28, dual clip 3. Per-token ℓ = max(−A r, −A clip(r, 0.8, 1.28)):
//   seq 1: −1 (grad −1), −1.25 (grad −1.25; symmetric 0.2 would clip it at −1.2), −1.28 (clipped high)
//   seq 2: max(0.5, 0.8) = 0.8 (clipped low), 1 (grad −A r = 1)
// token-mean (5 tokens): L = (−1 − 1.25 − 1.28 + 0.8 + 1)/5 = −0.346; w = (−0.2, −0.25, 0 | 0, 0.2, 0)
// seq-mean-token-mean: L = ((−3.53)/3 + 1.8/2)/2 = −0.138333; w = (−1/6, −1.25/6, 0 | 0, 1/4, 0)
// seq-mean-token-sum-norm, N = 4: L = (−3.53 + 1.8)/(2·4) = −0.21625; w = (−1/8, −1.25/8, 0 | 0, 1/8, 0)
const handBatch: LossSequence[] = [
  {
    logprobs: [Math.log(1), Math.log(1.25), Math.log(1.5)],
    oldLogprobs: [0, 0, 0],
    advantages: 1,
    mask: [1, 1, 1],
  },
  { logprobs: [-1 + Math.log(0.5), -1, -3], oldLogprobs: [-1, -1, -1], advantages: -1, mask: [1, 1, 0] },
];

function expectRows(actual: number[][], expected: number[][]): void {
  for (let i = 0; i < expected.length; i++) {
    for (let t = 0; t < expected[i].length; t++) expect(actual[i][t]).toBeCloseTo(expected[i][t], 10);
  }
}

describe('ppo-clip golden values', () => {
  const ppo = policyLosses.get('ppo-clip');

  it('token-mean: loss −0.346, weights by hand, clipfrac 2/5 (one high, one low)', () => {
    const result = ppo.compute(handBatch);
    expect(result.loss).toBeCloseTo(-0.346, 12);
    expectRows(result.weights, [
      [-0.2, -0.25, 0],
      [0, 0.2, 0],
    ]);
    expect(result.metrics['losses/policy']).toBeCloseTo(-0.346, 12);
    expect(result.metrics['losses/clipfrac']).toBeCloseTo(0.4, 12);
    expect(result.metrics['losses/clipfrac_high']).toBeCloseTo(0.2, 12);
    expect(result.metrics['losses/clipfrac_low']).toBeCloseTo(0.2, 12);
    expect(result.metrics['losses/tokens']).toBe(5);
    // k1 = mean(−log r) = −(0 + log 1.25 + log 1.5 + log 0.5 + 0)/5 = −log(0.9375)/5 = 0.0129077
    expect(result.metrics['losses/ppo_kl']).toBeCloseTo(-Math.log(0.9375) / 5, 10);
  });

  it('seq-mean-token-mean and seq-mean-token-sum-norm', () => {
    const perSequence = ppo.compute(handBatch, { aggregation: 'seq-mean-token-mean' });
    expect(perSequence.loss).toBeCloseTo((-3.53 / 3 + 1.8 / 2) / 2, 12);
    expectRows(perSequence.weights, [
      [-1 / 6, -1.25 / 6, 0],
      [0, 1 / 4, 0],
    ]);
    const drGrpo = ppo.compute(handBatch, { aggregation: 'seq-mean-token-sum-norm', tokenSumNormaliser: 4 });
    expect(drGrpo.loss).toBeCloseTo(-0.21625, 12);
    expectRows(drGrpo.weights, [
      [-0.125, -0.15625, 0],
      [0, 0.125, 0],
    ]);
    // Without a normaliser the longest sequence (3) is used: L = −1.73/(2·3).
    expect(ppo.compute(handBatch, { aggregation: 'seq-mean-token-sum-norm' }).loss).toBeCloseTo(
      -1.73 / 6,
      12,
    );
  });

  it("seq-mean-token-sum-norm is TRL's dr_grpo (1/B), and an all-empty sequence counts in B", () => {
    // handBatch plus a third sequence with no loss token; per-token ℓ as above: Σ masked ℓ = −3.53 + 1.8.
    const withEmpty: LossSequence[] = [
      ...handBatch,
      { logprobs: [-1, -1], oldLogprobs: [-1, -1], advantages: 1, mask: [0, 0] },
    ];
    // TRL dr_grpo: (per_token_loss · mask).sum() / (per_token_loss.size(0) · max_completion_length), the
    // empty row included in size(0): −1.73 / (3 · 4). verl (no 1/B since its 2026-01 revert): −1.73 / 4.
    const drGrpo = ppo.compute(withEmpty, { aggregation: 'seq-mean-token-sum-norm', tokenSumNormaliser: 4 });
    expect(drGrpo.loss).toBeCloseTo(-1.73 / 12, 12);
    // seq-mean-token-mean, B = 3 as in verl's new engine: (−3.53/3 + 1.8/2)/3; verl's dp_actor divides by
    // the 2 non-empty sequences instead (−0.138333, the value without the empty row above).
    const perSequence = ppo.compute(withEmpty, { aggregation: 'seq-mean-token-mean' });
    expect(perSequence.loss).toBeCloseTo((-3.53 / 3 + 1.8 / 2) / 3, 12);
  });

  it('clip-higher asymmetry: with symmetric ε = 0.2 the r = 1.25 token is clipped and loses its gradient', () => {
    const symmetric = ppo.compute(handBatch, { epsilonHigh: 0.2 });
    expect(symmetric.weights[0][1]).toBe(0);
    expect(symmetric.metrics['losses/clipfrac']).toBeCloseTo(0.6, 12);
    expect(symmetric.loss).toBeCloseTo((-1 - 1.2 - 1.2 + 0.8 + 1) / 5, 12);
  });

  it('dual clip caps the loss of a negative-advantage token at −A·c = 3 with zero gradient', () => {
    const batch: LossSequence[] = [{ logprobs: [Math.log(4)], oldLogprobs: [0], advantages: -1, mask: [1] }];
    const dual = ppo.compute(batch);
    expect(dual.loss).toBeCloseTo(3, 12);
    expect(dual.weights[0][0]).toBe(0);
    expect(dual.metrics['losses/clipfrac_dual']).toBe(1);
    const plain = ppo.compute(batch, { dualClipBound: null });
    expect(plain.loss).toBeCloseTo(4, 12);
    expect(plain.weights[0][0]).toBeCloseTo(4, 12); // −A·r
  });

  it('rejects unknown options and missing old log-probs', () => {
    expect(() => ppo.compute(handBatch, { clipRatio: 0.2 })).toThrow(ConfigError);
    expect(() => ppo.compute([{ logprobs: [0], advantages: 1, mask: [1] }])).toThrow(/oldLogprobs/);
    expect(() => ppo.compute([{ logprobs: [0, 1], oldLogprobs: [0], advantages: 1, mask: [1, 1] }])).toThrow(
      RangeError,
    );
    expect(() => policyLosses.get('grpo')).toThrow(UnknownNameError);
  });
});

describe('other losses, golden values', () => {
  it('importance-sampling on-policy is REINFORCE: w = −A/tokens', () => {
    const batch: LossSequence[] = [
      { logprobs: [-1, -2], advantages: 0.5, mask: [1, 1] },
      { logprobs: [-3], advantages: -2, mask: [1] },
    ];
    const result = policyLosses.get('importance-sampling').compute(batch);
    expectRows(result.weights, [[-0.5 / 3, -0.5 / 3], [2 / 3]]);
    expect(result.loss).toBeCloseTo((-0.5 - 0.5 + 2) / 3, 12);
  });

  it('cispo keeps the gradient of clipped tokens, weighted by the clipped ratio', () => {
    // r = 7 > 1 + 4 → weight 5; A = 1 → w = −5 (PPO would give 0). r = 0.5, A = −1 → w = 0.5.
    const batch: LossSequence[] = [
      { logprobs: [Math.log(7), Math.log(0.5)], oldLogprobs: [0, 0], advantages: [1, -1], mask: [1, 1] },
    ];
    const result = policyLosses.get('cispo').compute(batch, { aggregation: 'seq-mean-token-sum' });
    expectRows(result.weights, [[-5, 0.5]]);
    expect(result.metrics['losses/clipfrac_high']).toBe(0.5);
  });

  it('cross-entropy is the mean NLL: weights −1/tokens', () => {
    const result = policyLosses
      .get('cross-entropy')
      .compute([{ logprobs: [-1, -3, -9], advantages: 0, mask: [1, 1, 0] }]);
    expect(result.loss).toBeCloseTo(2, 12);
    expectRows(result.weights, [[-0.5, -0.5, 0]]);
  });

  it('policy-shaping: off-policy token with π = 0.1, γ = 0.1, A = 1 → ℓ = −0.5, ∂ℓ/∂logp = −0.25', () => {
    // f = 0.1/0.2 = 0.5; γπ/(π+γ)² = 0.01/0.04 = 0.25
    const result = policyLosses
      .get('policy-shaping')
      .compute([{ logprobs: [Math.log(0.1)], advantages: 1, mask: [1], offPolicy: [true] }], {
        aggregation: 'seq-mean-token-sum',
      });
    expect(result.loss).toBeCloseTo(-0.5, 12);
    expect(result.weights[0][0]).toBeCloseTo(-0.25, 12);
  });
});

describe('edge cases', () => {
  it('an all-masked batch gives loss 0, zero weights and no NaN for every loss and aggregation', () => {
    const batch: LossSequence[] = [
      {
        logprobs: [-1, -2],
        oldLogprobs: [-1, -1],
        advantages: 1,
        mask: [0, 0],
        reward: 0,
        groupRewards: [0, 1],
        group: 0,
        refLogprobs: [-1, -1],
      },
    ];
    for (const name of policyLosses.names()) {
      for (const aggregation of aggregationModes) {
        const result = policyLosses.get(name).compute(batch, { aggregation });
        expect(result.loss).toBe(0);
        expect(result.weights).toEqual([[0, 0]]);
        for (const value of Object.values(result.metrics)) expect(Number.isNaN(value)).toBe(false);
      }
    }
  });
});

describe('Dr. GRPO pairing', () => {
  it('seq-mean-token-sum-norm gives every token the same weight whatever its sequence length; seq-mean-token-mean does not', () => {
    // On-policy, A = 1 on a 2-token and a 4-token sequence; importance-sampling weight per token = −c.
    const batch: LossSequence[] = [
      { logprobs: [-1, -1], advantages: 1, mask: [1, 1] },
      { logprobs: [-1, -1, -1, -1], advantages: 1, mask: [1, 1, 1, 1] },
    ];
    const loss = policyLosses.get('importance-sampling');
    const perSequence = loss.compute(batch, { aggregation: 'seq-mean-token-mean' }).weights;
    expect(perSequence[0][0]).toBeCloseTo(-1 / 4, 12); // 1/(B·2)
    expect(perSequence[1][0]).toBeCloseTo(-1 / 8, 12); // 1/(B·4): long answers are down-weighted
    const drGrpo = loss.compute(batch, {
      aggregation: 'seq-mean-token-sum-norm',
      tokenSumNormaliser: 16,
    }).weights;
    expect(drGrpo[0][0]).toBeCloseTo(-1 / 32, 12);
    expect(drGrpo[1][3]).toBeCloseTo(-1 / 32, 12);
  });
});
