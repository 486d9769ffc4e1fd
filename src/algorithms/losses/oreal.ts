// OREAL (Outcome REwArd-based reinforcement Learning): behaviour cloning on the correct samples of
// best-of-N and a reshaped policy gradient on the wrong ones, each normalised by its own token count.
// Per token of a sequence with advantage A (the authors: RLOO over the group), in one compute() call with
// N⁺ tokens on correct sequences and N⁻ on wrong ones:
//   correct (reward ≥ positiveReward):  ℓ = −f⁺·A·log π / N⁺      ∂ℓ/∂logp = −f⁺·A / N⁺
//       (A dropped, ℓ = −f⁺·log π / N⁺, with multiplyAdvantage false)
//   wrong:                              ℓ = −f⁻·A·log π / N⁻         ∂ℓ/∂logp = −f⁻·A / N⁻
// with f⁺ = positiveLossFactor (authors: 1.0) and f⁻ = negativeLossFactor (0.5): the reshaped negatives
// of the paper (their gradient scaled against the positives', §3.2). The authors write the wrong samples'
// term as −f⁻·A·exp(logp − sg(logp)), a ratio to the current forward (sg = stop-gradient) whose value is 1:
// on-policy REINFORCE, not a PPO ratio. Its gradient is the one here; the reported value here is the
// REINFORCE surrogate −f⁻·A·log π (whose derivative the weights are), not their constant −f⁻·A.
// Paper: "Exploring the Limit of Outcome Reward for Learning Mathematical Reasoning" (Lyu et al. 2025),
// arXiv 2502.06781; authors' code InternLM/OREAL `train_oreal.py` (defaults from
// `oreal/configs/oreal_wo_tokenrm_OREAL-7B-SFT_seqlen16k.py`: reward_shaping_type rloo, pos_mult_adv True,
// positive_loss_factor 1.0, negative_loss_factor 0.5, kl_coef 0.01 with kl_type unbias), read for the
// formula; none of it copied. The recipe here: advantage `rloo`, loss `oreal`, `algorithm.kl` with
// estimator k3 (their "unbias" exp(kl) − kl − 1), coefficient 0.01, mode loss.
//
// Deviations: (1) the token-level reward model that weights tokens (the `w_tokenrm` configs: a scalar
// head trained by BCE of its sequence-mean logit against the outcome, weights from its running mean
// through threshold_rescale) is the run component algorithm.tokenRewardModel (components/token-rm), which
// hands this loss per-token advantages A·w_t; without it every token weighs 1 (the wo_tokenrm config). (2) The authors' judger scores ±1 and RLOO runs on those; Curricula's verifiers score
// 0/1, so A is half theirs (the learning rate absorbs it; the KL coefficient's relative weight doubles).
// (3) Their normalisers are the whole generation batch's N⁺ and N⁻; here those of one compute() call (the
// minibatch when algorithm.minibatches > 1; the whole batch at 1, their setting). (4) Their difficulty
// re-balancing of the prompt set by pass rate is a data step, not part of the loss; not built.
// The class normalisers are per-token scales N/N⁺ and N/N⁻ (N = all loss tokens of the call) under the
// configured aggregation: with token-mean (the default) that is exactly Σ⁺/N⁺ and Σ⁻/N⁻; under another
// aggregation it rebalances the two classes to equal total weight. `classNormalise: false` drops them.
// Expert tokens are not offered.
import { z } from 'zod';
import {
  aggregationOptionsShape,
  type BatchTerm,
  defineLoss,
  type LossSequence,
  type TokenInput,
  type TokenTerm,
} from './policy-loss.ts';

export const orealOptionsSchema = z.strictObject({
  ...aggregationOptionsShape,
  /** Average each class's terms over its own tokens (authors: N⁺ and N⁻); see the header. */
  classNormalise: z.boolean().default(true),
  /** f⁺: the positives' behaviour-cloning weight (authors: positive_loss_factor 1.0). */
  positiveLossFactor: z.number().min(0).default(1),
  /** f⁻: the negatives' policy-gradient weight (authors: negative_loss_factor 0.5). */
  negativeLossFactor: z.number().min(0).default(0.5),
  /** Multiply the positives' cloning term by their advantage (authors: pos_mult_adv True). */
  multiplyAdvantage: z.boolean().default(true),
  /** A sample is correct (a positive) when its reward is at least this. */
  positiveReward: z.number().default(1),
});
export type OrealOptions = z.output<typeof orealOptionsSchema>;

/**
 * OREAL's term at one token of a sequence that is `correct`; `scale` = N/N_class turns the
 * aggregation's 1/N into the class's 1/N_class.
 */
export function orealToken(
  token: TokenInput,
  correct: boolean,
  scale: number,
  options: OrealOptions,
): TokenTerm {
  const a = token.advantage;
  if (correct) {
    const coefficient = -options.positiveLossFactor * (options.multiplyAdvantage ? a : 1) * scale;
    return { value: coefficient * token.logprob, derivative: coefficient };
  }
  const coefficient = -options.negativeLossFactor * a * scale;
  return { value: coefficient * token.logprob, derivative: coefficient };
}

/** Tokens on correct and on wrong sequences (masked-in tokens only). */
function classTokens(sequences: readonly LossSequence[], correct: readonly boolean[]) {
  let positive = 0;
  let negative = 0;
  sequences.forEach((sequence, i) => {
    const tokens = sequence.mask.reduce((sum, m) => sum + (m !== 0 ? 1 : 0), 0);
    if (correct[i]) positive += tokens;
    else negative += tokens;
  });
  return { positive, negative };
}

export function orealBatchTerm(
  sequences: readonly LossSequence[],
  options: OrealOptions,
): BatchTerm<OrealOptions> {
  const correct = sequences.map((sequence, index) => {
    if (sequence.reward === undefined) {
      throw new RangeError(`sequence ${index}: loss 'oreal' needs the sequence's reward (reward)`);
    }
    return sequence.reward >= options.positiveReward;
  });
  const { positive, negative } = classTokens(sequences, correct);
  const total = positive + negative;
  const scale = (count: number) => (!options.classNormalise ? 1 : count > 0 ? total / count : 0);
  const scales = { positive: scale(positive), negative: scale(negative) };
  return {
    tokenLoss: (token, resolved) => {
      const isCorrect = correct[token.sequence ?? 0];
      return orealToken(token, isCorrect, isCorrect ? scales.positive : scales.negative, resolved);
    },
    metrics: { 'losses/oreal_positive_token_frac': total > 0 ? positive / total : 0 },
  };
}

export const oreal = defineLoss({
  id: 'oreal',
  description:
    'OREAL: behaviour cloning on correct samples, a reshaped (×0.5) policy gradient on wrong ones, each over its own tokens',
  paper: {
    title: 'Exploring the Limit of Outcome Reward for Learning Mathematical Reasoning',
    arxiv: '2502.06781',
    code: 'InternLM/OREAL train_oreal.py',
  },
  optionsSchema: orealOptionsSchema,
  batchTerm: orealBatchTerm,
  requireOldLogprobs: false,
});
