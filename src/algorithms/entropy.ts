// The entropy bonus: −β · aggregate(H) added to the policy loss, H_t = −Σ_v π(v|s_t) log π(v|s_t) the
// entropy of the policy's next-token distribution at each completion token, aggregated like the policy
// loss (its mode and tokenSumNormaliser, as verl's agg_loss on the entropy matrix: `policy_loss −=
// entropy_coeff · entropy_loss`, actor.entropy_coeff, default 0). Maximising it slows the entropy collapse
// that RL on verifiable rewards shows. Reference: verl `compute_entropy_loss` and dp_actor's use of it
// (verl/trainer/ppo/core_algos.py, workers/actor/dp_actor.py); TRL, OpenRLHF and SkyRL ship the same
// term. Read for the formula; none of it copied.
//
// Two estimators, by what the backend can give:
// - 'exact' (verl's): the backend computes H from the full distribution and its gradient
//   dH/dz_v = −p_v(log p_v + H) (Datum.entropyWeights e_t = −β·c_t; src/core/policy.ts). The embedded
//   backend has the distribution; a Tinker server does not (refused at config time).
// - 'sampled': from the sampled token only, for any backend. At a state s, ∇H = −E_{y∼π}[log π(y)·∇log π(y)]
//   (the +1 term has mean 0), so −r_t·logp_t·∇logp_t is an unbiased estimate of ∇H_t from y_t ∼ π_old, with
//   r_t = π/π_old held constant (1 on the first pass). The per-token weight on logp is then β·c_t·r_t·logp_t;
//   its reported value is the Monte-Carlo H ≈ −logp. Higher variance than 'exact'; no full distribution.
// Deviations: none known for 'exact' (verl differentiates the same H through the logits); 'sampled' is
// ours, for remote backends.
import { z } from 'zod';
import { type AggregationMode, aggregationCoefficients } from './losses/aggregation.ts';

export const entropyEstimators = ['exact', 'sampled'] as const;
export type EntropyEstimator = (typeof entropyEstimators)[number];

export const entropyBonusSchema = z
  .strictObject({
    /** β: weight of the entropy bonus (verl actor.entropy_coeff: 0 = off). */
    coefficient: z.number().min(0).default(0),
    /** 'exact' (the backend's full distribution; embedded only) or 'sampled' (any backend). */
    estimator: z.enum(entropyEstimators).default('exact'),
  })
  .default({ coefficient: 0, estimator: 'exact' });
export type EntropyBonus = z.output<typeof entropyBonusSchema>;

export interface EntropySequence {
  /** log π_θ of each completion token (current pass). */
  logprobs: readonly number[];
  /** log π_old of the same tokens (the sampling policy's); absent = on-policy. */
  oldLogprobs?: readonly number[];
  mask: readonly number[];
}

export interface EntropyAggregation {
  aggregation: AggregationMode;
  tokenSumNormaliser?: number | undefined;
}

/** 'exact': per-token entropy weights e_t = −β·c_t (the backend adds Σ e·H to the loss). */
export function exactEntropyWeights(
  masks: readonly (readonly number[])[],
  coefficient: number,
  options: EntropyAggregation,
): number[][] {
  const coefficients = aggregationCoefficients(masks, options.aggregation, options.tokenSumNormaliser);
  return coefficients.map((row) => row.map((c) => (c === 0 ? 0 : -coefficient * c)));
}

/** 'sampled': weights on logp, β·c_t·r_t·logp_t, and the Monte-Carlo mean entropy −mean(logp). */
export function sampledEntropyWeights(
  sequences: readonly EntropySequence[],
  coefficient: number,
  options: EntropyAggregation,
): { weights: number[][]; entropy: number } {
  const coefficients = aggregationCoefficients(
    sequences.map((sequence) => sequence.mask),
    options.aggregation,
    options.tokenSumNormaliser,
  );
  let sum = 0;
  let tokens = 0;
  const weights = sequences.map((sequence, i) =>
    sequence.logprobs.map((logprob, t) => {
      if (sequence.mask[t] === 0) return 0;
      const ratio = Math.exp(logprob - (sequence.oldLogprobs?.[t] ?? logprob));
      sum -= logprob;
      tokens++;
      return coefficient * coefficients[i][t] * ratio * logprob;
    }),
  );
  return { weights, entropy: tokens > 0 ? sum / tokens : 0 };
}

/** The mean of the backend's entropies over the loss tokens (rows aligned with the masks). */
export function meanEntropy(
  entropies: readonly (readonly number[])[],
  masks: readonly (readonly number[])[],
): number {
  let sum = 0;
  let tokens = 0;
  masks.forEach((mask, i) => {
    mask.forEach((m, t) => {
      if (m === 0) return;
      sum += entropies[i][t];
      tokens++;
    });
  });
  return tokens > 0 ? sum / tokens : 0;
}
