// Sampler/trainer mismatch: how far the sampler's log-probs of the sampled tokens are from the trainer's,
// and the rollout corrections that TRL and verl ship for it. When one engine samples (vLLM, SGLang, a
// remote Tinker sampler) and another trains, the two disagree on the same tokens at the same weights
// (kernels, precision, a stale weight sync), so the "on-policy" batch is slightly off-policy.
//
// Notation, per sampled token t: logp_s = the sampler's log-prob (SampledSequence.logprobs: the policy at
// temperature 1, which is what vLLM returns by default), logp_tr = the trainer's log-prob of the same
// token at the same weights (the old-logprob pass), Δ_t = logp_tr − logp_s, ρ_t = exp(Δ_t) = π_tr/π_s.
//
// Metrics (mismatchMetrics; fixed keys, token means over the measured tokens):
//   mismatch/abs_diff_mean, mismatch/abs_diff_max   mean and max of |Δ| (TRL
//                                  sampling/sampling_logp_difference/{mean,max})
//   mismatch/k1_kl                 mean of −Δ = logp_s − logp_tr (verl rollout_corr/kl)
//   mismatch/k3_kl                 mean of ρ − 1 − log ρ (verl rollout_corr/k3_kl; Schulman's k3)
//   mismatch/frac_over             share of tokens with ρ outside [clipMin, clipMax] (clipMin absent:
//                                  1/clipMax), i.e. the tokens a token-mask correction would drop
//   mismatch/tokens                number of tokens measured
// Direction of the KL estimates: the tokens were drawn by the sampler, so a Monte-Carlo estimate over them
// is an expectation under π_s. k1 and k3 with r = π_tr/π_s are then unbiased estimates of KL(π_s‖π_tr),
// the sampler-to-trainer KL; the other direction would need π_tr's own samples or the full vocabulary
// distributions, which neither engine returns. This is verl's choice too ("KL(π_rollout‖π_training)").
// Caveat: the expectation is exact only when the sampler draws from π_s itself (temperature 1, topP 1);
// under another temperature or top-p the tokens come from a different distribution and the estimate is
// biased (TRL and verl share this).
//
// Corrections (rolloutCorrectionWeights, applied by every loss through its `rolloutCorrection` option,
// src/algorithms/losses/policy-loss.ts): a per-token weight w_t, held constant, multiplies the token's
// policy-loss term (value and gradient). Modes follow TRL GRPOTrainer `vllm_importance_sampling_mode`
// (trl/trainer/grpo_trainer.py and grpo_config.py, huggingface/trl f2cd577, 2026-07-24):
//   token-truncate      w_t = clamp(ρ_t, clipMin, clipMax)                        (TIS)
//   token-mask          w_t = ρ_t if clipMin ≤ ρ_t ≤ clipMax, else 0              (MIS / IcePop)
//   sequence-truncate   w_t = clamp(ρ_seq, clipMin, clipMax) on every token,  ρ_seq = exp(Σ_t Δ_t)
//   sequence-mask       w_t = ρ_seq if clipMin ≤ ρ_seq ≤ clipMax, else 0 (the whole sequence)
// The sequence ratio is the product of the token ratios (TRL: per_token_logps_diff.sum; verl
// rollout_is='sequence': exp(masked_sum)), not the geometric mean. Defaults follow TRL: clipMax = 3
// (vllm_importance_sampling_clip_max), clipMin = none (vllm_importance_sampling_clip_min = None: no lower
// bound); verl's rollout_is_threshold default is 2.0, and its IcePop preset zeroes outside [0.5, 5].
// Off by default here, while TRL turns it on (sequence-mask) whenever it samples with vLLM: the embedded
// backend samples and trains with the same weights and code.
// Deviations: log-ratios are clamped to ±20 before exp (verl SAFETY_BOUND; TRL does not clamp) so that no
// weight or metric is infinite, which changes no mask or truncation decision for a bound below e^20.
// verl's rejection sampling (rollout_rs, which removes tokens from the loss normaliser as well) and its
// batch normalisation of weights are not implemented: masked tokens here stay in the aggregation's
// denominator with weight 0, as in TRL.
import { z } from 'zod';

/** |Δ| is clamped to this before exp (verl rollout_corr_helper SAFETY_BOUND). */
const logRatioBound = 20;

export const rolloutCorrectionModes = [
  'off',
  'token-truncate',
  'token-mask',
  'sequence-truncate',
  'sequence-mask',
] as const;
export type RolloutCorrectionMode = (typeof rolloutCorrectionModes)[number];

const rolloutCorrectionDefaults = { mode: 'off' as const, clipMax: 3, clipMin: null };

export const rolloutCorrectionSchema = z
  .strictObject({
    /** Which correction; 'off' = none (the default). */
    mode: z.enum(rolloutCorrectionModes).default('off'),
    /** Upper bound C on ρ: truncated to it, or masked above it (TRL vllm_importance_sampling_clip_max: 3). */
    clipMax: z.number().positive().default(3),
    /** Lower bound on ρ (null = none; TRL vllm_importance_sampling_clip_min: None). 1/clipMax gives [1/C, C]. */
    clipMin: z.number().positive().nullable().default(null),
  })
  .refine((options) => options.clipMin === null || options.clipMin < options.clipMax, {
    message: 'clipMin must be below clipMax',
    path: ['clipMin'],
  })
  .default(rolloutCorrectionDefaults);
export type RolloutCorrection = z.output<typeof rolloutCorrectionSchema>;

export interface MismatchSequence {
  /** log π_tr: the trainer's log-probs of the sampled tokens, at the weights that sampled them. [T] */
  trainerLogprobs: readonly number[];
  /** log π_s: the sampler's log-probs of the same tokens (temperature 1). [T] */
  samplerLogprobs: readonly number[];
  /** 1 for tokens that count (sampled completion tokens), 0 otherwise; absent = all count. [T] */
  mask?: readonly number[];
}

const clampLogRatio = (value: number) => Math.min(logRatioBound, Math.max(-logRatioBound, value));

/** Δ_t = logp_tr − logp_s for every token, after checking the shapes. */
function logRatios(sequence: MismatchSequence, index: number): number[] {
  const length = sequence.trainerLogprobs.length;
  if (sequence.samplerLogprobs.length !== length || (sequence.mask && sequence.mask.length !== length)) {
    throw new RangeError(
      `mismatch sequence ${index}: trainerLogprobs ${length}, samplerLogprobs ${sequence.samplerLogprobs.length}` +
        (sequence.mask ? `, mask ${sequence.mask.length}` : ''),
    );
  }
  return sequence.trainerLogprobs.map((logprob, t) => logprob - sequence.samplerLogprobs[t]);
}

const counts = (sequence: MismatchSequence, t: number) => (sequence.mask ? sequence.mask[t] !== 0 : true);

/**
 * The correction weight w_t of every token of one sequence (see the header): 0 where the mask is 0, 1
 * everywhere else when the mode is 'off'. `index` only names the sequence in a shape error.
 */
export function rolloutCorrectionWeights(
  sequence: MismatchSequence,
  options: RolloutCorrection,
  index = 0,
): number[] {
  const deltas = logRatios(sequence, index);
  if (options.mode === 'off') return deltas.map((_, t) => (counts(sequence, t) ? 1 : 0));
  const [level, constraint] = options.mode.split('-') as ['token' | 'sequence', 'truncate' | 'mask'];
  const lower = options.clipMin ?? 0;
  const sequenceLogRatio = deltas.reduce((sum, delta, t) => (counts(sequence, t) ? sum + delta : sum), 0);
  return deltas.map((delta, t) => {
    if (!counts(sequence, t)) return 0;
    const ratio = Math.exp(clampLogRatio(level === 'token' ? delta : sequenceLogRatio));
    if (constraint === 'truncate') return Math.min(options.clipMax, Math.max(lower, ratio));
    return ratio >= lower && ratio <= options.clipMax ? ratio : 0;
  });
}

/** The ρ interval outside which a token counts in mismatch/frac_over: [clipMin or 1/clipMax, clipMax]. */
export function mismatchBounds(options: Pick<RolloutCorrection, 'clipMax' | 'clipMin'>): [number, number] {
  return [options.clipMin ?? 1 / options.clipMax, options.clipMax];
}

/** The mismatch metrics of the header over every counted token of `sequences` (all 0 when there are none). */
export function mismatchMetrics(
  sequences: readonly MismatchSequence[],
  options: Pick<RolloutCorrection, 'clipMax' | 'clipMin'>,
): Record<string, number> {
  const [lower, upper] = mismatchBounds(options);
  let tokens = 0;
  let absSum = 0;
  let absMax = 0;
  let k1Sum = 0;
  let k3Sum = 0;
  let over = 0;
  sequences.forEach((sequence, index) => {
    logRatios(sequence, index).forEach((delta, t) => {
      if (!counts(sequence, t)) return;
      tokens++;
      absSum += Math.abs(delta);
      absMax = Math.max(absMax, Math.abs(delta));
      k1Sum += -delta;
      const clamped = clampLogRatio(delta);
      k3Sum += Math.expm1(clamped) - clamped;
      const ratio = Math.exp(clamped);
      if (ratio < lower || ratio > upper) over++;
    });
  });
  const mean = (value: number) => (tokens > 0 ? value / tokens : 0);
  return {
    'mismatch/abs_diff_mean': mean(absSum),
    'mismatch/abs_diff_max': absMax,
    'mismatch/k1_kl': mean(k1Sum),
    'mismatch/k3_kl': mean(k3Sum),
    'mismatch/frac_over': mean(over),
    'mismatch/tokens': tokens,
  };
}
