// NFT (negative-aware fine-tuning): supervised learning on the policy's own samples that also learns from
// the wrong ones, through an implicit negative policy π⁻ = (π_old − r̂·π_θ)/(1 − r̂) built from the same
// weights. Per token, with R = π_θ/π_old (log R clamped above at 10), r̂ the share of correct samples in
// the sample's group (clamped to [0.02, 0.98]), and the `normalise` weight (1 − r̂):
//   correct sample:  ℓ = −(1 − r̂)·log R                                   ∂ℓ/∂logp = −(1 − r̂)
//   wrong sample:    ℓ = −w⁻·(1 − r̂)·log ĉ,  c = (1 − r̂R)/(1 − r̂),  ĉ = c clamped below at c_min with the
//                    gradient of c kept (straight-through)                ∂ℓ/∂logp = w⁻·r̂·R / max(c, c_min)
// On-policy (R = 1) the weights are −(1 − r̂) and +r̂: GRPO's with 0/1 rewards up to its 1/std (the paper's
// equivalence). Paper: "Bridging Supervised Learning and Reinforcement Learning in Math Reasoning" (Chen
// et al. 2025), arXiv 2505.18116, §3; authors' code NVlabs/NFT (dp_actor.py, ratio_type token; defaults
// from train_7B.sh: neg_weight 1, clamp_negative 1, clamp_positive 0, normalize 1), read for the formula;
// none of it copied.
//
// The straight-through clamp means the reported loss is not the integral of the weights wherever it
// acts (a wrong sample with R > 1 at c_min = 1: value 0, weight w⁻r̂R): the weights are the authors'
// gradient, the value their reported loss. Deviations: the authors sum each sequence's tokens and divide
// by 1000, then sum over the batch; the default aggregation here is seq-mean-token-sum-norm (a constant
// normaliser too, N = tokenSumNormaliser, default the longest sequence) with its 1/B: a constant factor
// (see aggregation.ts). "Correct" is reward ≥ positiveReward (the authors' ±1 scores > 0). Not offered for
// expert tokens. Needs each sequence's reward and its group's rewards (update.ts passes them).
import { z } from 'zod';
import { aggregationModes } from './aggregation.ts';
import {
  aggregationOptionsShape,
  type BatchTerm,
  defineLoss,
  type LossSequence,
  type TokenInput,
  type TokenTerm,
} from './policy-loss.ts';

export const nftOptionsSchema = z.strictObject({
  ...aggregationOptionsShape,
  /** A constant normaliser, as the authors' token sum / 1000 (see the header). */
  aggregation: z.enum(aggregationModes).default('seq-mean-token-sum-norm'),
  /** w⁻: weight of the negative samples' term (authors: 1 for NFT; 0 gives RFT on the positives). */
  negativeWeight: z.number().min(0).default(1),
  /** c_min: the negative proxy's value is clamped below at this, its gradient kept (authors: 1). */
  clampNegative: z.number().positive().default(1),
  /** r̂ is clamped into [rateClamp, 1 − rateClamp] (authors: 0.02). */
  rateClamp: z.number().min(0).max(0.5).default(0.02),
  /** Multiply every term by 1 − r̂ (authors' normalize 1: on). */
  normalise: z.boolean().default(true),
  /** A sample is correct when its reward is at least this. */
  positiveReward: z.number().default(1),
  /** log R is clamped above at this before exp (authors: 10). */
  logRatioClamp: z.number().positive().default(10),
});
export type NftOptions = z.output<typeof nftOptionsSchema>;

/** r̂ of one sequence's group: the share of correct members, clamped. */
export function correctRate(groupRewards: readonly number[], options: NftOptions): number {
  const correct = groupRewards.filter((reward) => reward >= options.positiveReward).length;
  const rate = groupRewards.length > 0 ? correct / groupRewards.length : 0;
  return Math.min(1 - options.rateClamp, Math.max(options.rateClamp, rate));
}

/** NFT's term at one token of a sequence that is `correct`, in a group of correct rate `rate`. */
export function nftToken(token: TokenInput, correct: boolean, rate: number, options: NftOptions): TokenTerm {
  const raw = token.logprob - token.oldLogprob;
  const logRatio = Math.min(options.logRatioClamp, raw);
  const inRange = logRatio === raw;
  const scale = options.normalise ? 1 - rate : 1;
  if (correct) return { value: -scale * logRatio, derivative: inRange ? -scale : 0 };
  const ratio = Math.exp(logRatio);
  const proxy = (1 - rate * ratio) / (1 - rate);
  const held = Math.max(proxy, options.clampNegative);
  const w = options.negativeWeight * scale;
  return {
    value: -w * Math.log(held),
    derivative: inRange ? (w * rate * ratio) / ((1 - rate) * held) : 0,
    ...(proxy < options.clampNegative && { clipped: 'low' as const }),
  };
}

export function nftBatchTerm(sequences: readonly LossSequence[], options: NftOptions): BatchTerm<NftOptions> {
  const facts = sequences.map((sequence, index) => {
    if (sequence.reward === undefined || sequence.groupRewards === undefined) {
      throw new RangeError(
        `sequence ${index}: loss 'nft' needs the sequence's reward and its group's rewards (reward, groupRewards)`,
      );
    }
    return {
      correct: sequence.reward >= options.positiveReward,
      rate: correctRate(sequence.groupRewards, options),
    };
  });
  const rates = facts.map((fact) => fact.rate);
  return {
    tokenLoss: (token, resolved) => {
      const fact = facts[token.sequence ?? 0];
      return nftToken(token, fact.correct, fact.rate, resolved);
    },
    metrics: {
      'losses/nft_correct_rate_mean':
        rates.length > 0 ? rates.reduce((sum, r) => sum + r, 0) / rates.length : 0,
      'losses/nft_negative_frac':
        facts.length > 0 ? facts.filter((fact) => !fact.correct).length / facts.length : 0,
    },
  };
}

export const nft = defineLoss({
  id: 'nft',
  description:
    'negative-aware fine-tuning: likelihood on correct samples, an implicit negative policy on wrong ones (supervised, GRPO-equivalent on-policy)',
  paper: {
    title: 'Bridging Supervised Learning and Reinforcement Learning in Math Reasoning',
    arxiv: '2505.18116',
    code: 'NVlabs/NFT dp_actor.py',
  },
  optionsSchema: nftOptionsSchema,
  batchTerm: nftBatchTerm,
  requireOldLogprobs: true,
});
