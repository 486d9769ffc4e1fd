// KL between the policy π_θ and a frozen reference π_ref, estimated per sampled token from log-probs,
// with r = π_ref/π_θ = exp(logp_ref − logp) and the three estimators of Schulman, "Approximating KL
// Divergence" (blog, 2020, http://joschu.net/blog/kl-approx.html):
//   k1 = −log r = logp − logp_ref          ∂k1/∂logp = 1
//   k2 = ½ (log r)²                        ∂k2/∂logp = logp − logp_ref
//   k3 = (r − 1) − log r                   ∂k3/∂logp = 1 − r
// Each is a (k1, k3 unbiased; k2 slightly biased) estimate of the VALUE of KL(π_θ‖π_ref) for tokens sampled
// from π_θ. Their GRADIENTS are a different matter ("On a few pitfalls in KL divergence gradient
// estimation for RL", Tang & Munos 2025, arXiv 2506.09477). On-policy, per token, with expectations over
// the sampled token:
//   k1 as a loss:  E[∇k1] = E[∇logπ] = 0, no KL gradient at all in expectation (only noise).
//   k2 as a loss:  E[(logπ − logπ_ref)∇logπ] = ∇KL(π‖π_ref), the reverse-KL gradient.
//   k3 as a loss:  E[(1 − π_ref/π)∇logπ] = ∇KL(π_ref‖π), the gradient of the FORWARD KL: biased for the
//                  reverse KL it estimates (GRPO/DeepSeekMath and verl's default low_var_kl use this).
// All three loss forms give only the partial, per-token gradient: they ignore how changing an early token's
// distribution changes which later tokens are sampled (Tang & Munos's second pitfall).
//   k1 as a REWARD penalty (detached, r_i ← r_i − β Σ_t k1_t, then the usual score-function gradient):
//                  an unbiased gradient of the sequence-level KL(π‖π_ref), future tokens included (the
//                  RLHF/InstructGPT form). k2/k3 as detached rewards are biased (their value depends on θ).
// Off-policy (tokens from π_old ≠ π_θ) all of this holds only approximately.
//
// Clamps follow verl `kl_penalty` (core_algos.py): for k3, logp_ref − logp is clamped to ±20 and k3 to
// [−10, 10]; the derivative is 0 where a clamp is active. Defaults follow verl: loss penalty k3
// (kl_loss_type low_var_kl) with β = 0.001 (kl_loss_coef); reward penalty k1 (kl_penalty 'kl') with
// β = 0.001 (kl_ctrl.kl_coef). Entropy is computed by the backend, not here.
import { z } from 'zod';
import { type AggregationMode, aggregationCoefficients, aggregationModes } from './losses/aggregation.ts';
import { parseOptions } from './options.ts';

export const klEstimators = ['k1', 'k2', 'k3'] as const;
export type KlEstimator = (typeof klEstimators)[number];

const logRatioClamp = 20;
const k3Clamp = 10;

/** The estimate k(logp, logp_ref) for one sampled token. */
export function klEstimate(logprob: number, refLogprob: number, estimator: KlEstimator): number {
  const difference = logprob - refLogprob;
  switch (estimator) {
    case 'k1':
      return difference;
    case 'k2':
      return 0.5 * difference * difference;
    case 'k3': {
      const logR = Math.min(logRatioClamp, Math.max(-logRatioClamp, -difference));
      return Math.min(k3Clamp, Math.max(-k3Clamp, Math.expm1(logR) - logR));
    }
  }
}

/** ∂k/∂logp for one sampled token (logp_ref is frozen). */
export function klDerivative(logprob: number, refLogprob: number, estimator: KlEstimator): number {
  const difference = logprob - refLogprob;
  switch (estimator) {
    case 'k1':
      return 1;
    case 'k2':
      return difference;
    case 'k3': {
      const logR = -difference;
      if (Math.abs(logR) > logRatioClamp || Math.expm1(logR) - logR > k3Clamp) return 0;
      return -Math.expm1(logR);
    }
  }
}

export interface KlSequence {
  /** log π_θ of each completion token. [T] */
  logprobs: readonly number[];
  /** log π_ref of the same tokens under the frozen reference model. [T] */
  refLogprobs: readonly number[];
  /** 1 for completion tokens, 0 for prompt and padding. [T] */
  mask: readonly number[];
  /**
   * 0 leaves the sequence's KL out of the term while its tokens still count in the normaliser (KDRL's
   * reward-guided KD: no KL on correct samples); absent = 1.
   */
  weight?: number;
}

export const klLossPenaltyOptionsSchema = z.strictObject({
  estimator: z.enum(klEstimators).default('k3'),
  /** β: weight of the KL term in the loss (verl kl_loss_coef: 0.001). */
  coefficient: z.number().nonnegative().default(0.001),
  /** Use the same aggregation as the policy loss it is added to. */
  aggregation: z.enum(aggregationModes).default('token-mean'),
  /** And the same N under seq-mean-token-sum-norm (one normaliser for both terms, as verl and TRL). */
  tokenSumNormaliser: z.number().positive().optional(),
});
export type KlLossPenaltyOptions = z.output<typeof klLossPenaltyOptionsSchema>;

export interface KlLossPenaltyResult {
  /** [sequence][token] β·c·∂k/∂logp: add these to the policy-loss weights (addWeights). */
  weights: number[][];
  /** β · aggregated k. */
  loss: number;
  /** losses/kl: token mean of k over masked tokens; losses/kl_penalty: β·aggregated k. */
  metrics: Record<string, number>;
}

/** KL used as a loss term: β · aggregate(k), as per-token weights. See the header for which gradient it gives. */
export function klLossPenalty(sequences: readonly KlSequence[], rawOptions?: unknown): KlLossPenaltyResult {
  const options = parseOptions(klLossPenaltyOptionsSchema, rawOptions, 'KL loss penalty');
  checkShapes(sequences);
  const coefficients = aggregationCoefficients(
    sequences.map((sequence) => sequence.mask),
    options.aggregation as AggregationMode,
    options.tokenSumNormaliser,
  );
  let loss = 0;
  let klSum = 0;
  let tokens = 0;
  const weights = sequences.map((sequence, i) =>
    sequence.logprobs.map((logprob, t) => {
      if (sequence.mask[t] === 0) return 0;
      const k = klEstimate(logprob, sequence.refLogprobs[t], options.estimator);
      klSum += k;
      tokens += 1;
      const scale = options.coefficient * coefficients[i][t] * (sequence.weight ?? 1);
      loss += scale * k;
      return scale * klDerivative(logprob, sequence.refLogprobs[t], options.estimator);
    }),
  );
  return {
    weights,
    loss,
    metrics: { 'losses/kl': tokens > 0 ? klSum / tokens : 0, 'losses/kl_penalty': loss },
  };
}

export const klRewardPenaltyOptionsSchema = z.strictObject({
  estimator: z.enum(klEstimators).default('k1'),
  /** β: reward units per nat (verl kl_ctrl.kl_coef: 0.001). */
  coefficient: z.number().nonnegative().default(0.001),
});
export type KlRewardPenaltyOptions = z.output<typeof klRewardPenaltyOptionsSchema>;

export interface KlRewardPenalty {
  /** [sequence][token] −β·k_t (0 on masked tokens): a per-token reward for estimators that use one. */
  perToken: number[][];
  /** [sequence] −β·Σ_t k_t: add to the sequence reward before computing advantages. */
  perSequence: number[];
}

/** KL used as a (detached) reward penalty. The logprobs are usually the sampling policy's. */
export function klRewardPenalty(sequences: readonly KlSequence[], rawOptions?: unknown): KlRewardPenalty {
  const options = parseOptions(klRewardPenaltyOptionsSchema, rawOptions, 'KL reward penalty');
  checkShapes(sequences);
  const perToken = sequences.map((sequence) =>
    sequence.logprobs.map((logprob, t) =>
      sequence.mask[t] === 0
        ? 0
        : -options.coefficient * klEstimate(logprob, sequence.refLogprobs[t], options.estimator),
    ),
  );
  return { perToken, perSequence: perToken.map((row) => row.reduce((sum, value) => sum + value, 0)) };
}

/** What the trainer logs of the KL to the reference (algorithm.kl.monitor or a KL term). */
export interface ReferenceKl {
  /** Mean over sequences of Σ_t k1_t = Σ_t (logp − logp_ref): an unbiased estimate of the sequence-level
   * KL(π‖π_ref) for completions sampled from π (the x-axis of Gao et al.'s over-optimisation curves is its
   * square root). */
  sequence: number;
  /** Mean k1 per completion token, and the same with the always non-negative k3. */
  tokenK1: number;
  tokenK3: number;
}

/** The KL to the reference of sampled completions, by the k1 (sequence, token) and k3 (token) estimators. */
export function referenceKl(sequences: readonly KlSequence[]): ReferenceKl {
  checkShapes(sequences);
  let sequenceSum = 0;
  let k1 = 0;
  let k3 = 0;
  let tokens = 0;
  for (const sequence of sequences) {
    sequence.logprobs.forEach((logprob, t) => {
      if (sequence.mask[t] === 0) return;
      const one = klEstimate(logprob, sequence.refLogprobs[t], 'k1');
      sequenceSum += one;
      k1 += one;
      k3 += klEstimate(logprob, sequence.refLogprobs[t], 'k3');
      tokens++;
    });
  }
  return {
    sequence: sequences.length > 0 ? sequenceSum / sequences.length : 0,
    tokenK1: tokens > 0 ? k1 / tokens : 0,
    tokenK3: tokens > 0 ? k3 / tokens : 0,
  };
}

function checkShapes(sequences: readonly KlSequence[]): void {
  sequences.forEach((sequence, index) => {
    const length = sequence.logprobs.length;
    if (sequence.refLogprobs.length !== length || sequence.mask.length !== length) {
      throw new RangeError(
        `KL sequence ${index}: logprobs ${length}, refLogprobs ${sequence.refLogprobs.length}, mask ${sequence.mask.length}`,
      );
    }
  });
}
