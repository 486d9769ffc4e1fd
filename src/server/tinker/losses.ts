// Tinker's built-in losses, as Tinker defines them (tinker-docs "Loss functions"; per-token forms and
// config defaults as recorded in ../shared/reference/remote-training.md §1.4 from SkyRL's loss_fns.py).
// Every loss is a SUM over datums and tokens (no normalisation; the metric is `loss:sum`), with
// r = exp(logp − logp_sampler):
//   cross_entropy        ℓ = −w·logp                                  inputs: target_tokens, weights
//   importance_sampling  ℓ = −r·A                                     inputs: target_tokens, logprobs, advantages
//   ppo                  ℓ = −min(r·A, clip(r, lo, hi)·A)             lo, hi = clip_low/high_threshold (0.8, 1.2)
//   cispo                ℓ = −sg(clip(r, lo, hi))·A·logp              lo, hi = clip_low/high_threshold (0.0, 4.0)
// Each term comes from our pure per-token loss functions (src/algorithms/losses), which also give
// dℓ/dlogp; the server hands those derivatives to the policy as 'linear' weights (src/core/policy.ts).
// Not provided: `dro`, whose closed form no source we hold documents (remote-and-guidance-2026.md §1.3).

import { cispoToken } from '../../algorithms/losses/cispo.ts';
import { importanceSamplingToken } from '../../algorithms/losses/importance-sampling.ts';
import type { TokenTerm } from '../../algorithms/losses/policy-loss.ts';
import { ppoClipToken } from '../../algorithms/losses/ppo-clip.ts';
import { rolloutCorrectionSchema } from '../../algorithms/mismatch.ts';
import { Registry } from '../../core/registry.ts';

/** The loss inputs of one position t (besides target_tokens). */
export interface TokenInputs {
  weight: number;
  samplingLogprob: number;
  advantage: number;
}

export interface TinkerLoss {
  /** loss_fn_inputs the loss reads besides target_tokens. */
  readonly inputs: readonly ('weights' | 'logprobs' | 'advantages')[];
  /** loss_fn_config keys and their defaults; other keys are refused. */
  readonly configDefaults: Readonly<Record<string, number>>;
  /** true when the gradient weights depend on the current log-probs (needs a forward pass first). */
  readonly needsLogprobs: boolean;
  term(logprob: number, inputs: TokenInputs, config: Record<string, number>): TokenTerm;
}

const crossEntropy: TinkerLoss = {
  inputs: ['weights'],
  configDefaults: {},
  needsLogprobs: false,
  term: (logprob, { weight }) => ({ value: -weight * logprob, derivative: -weight }),
};

const importanceSampling: TinkerLoss = {
  inputs: ['logprobs', 'advantages'],
  configDefaults: {},
  needsLogprobs: true,
  term: (logprob, { samplingLogprob, advantage }) =>
    importanceSamplingToken({ logprob, oldLogprob: samplingLogprob, advantage, offPolicy: false }),
};

/** Tinker's losses have no sampler/trainer correction (Curricula's rolloutCorrection option, off). */
const noRolloutCorrection = rolloutCorrectionSchema.parse(undefined);

const ppo: TinkerLoss = {
  inputs: ['logprobs', 'advantages'],
  configDefaults: { clip_low_threshold: 0.8, clip_high_threshold: 1.2 },
  needsLogprobs: true,
  term: (logprob, { samplingLogprob, advantage }, config) =>
    ppoClipToken(
      { logprob, oldLogprob: samplingLogprob, advantage, offPolicy: false },
      {
        aggregation: 'token-mean',
        rolloutCorrection: noRolloutCorrection,
        epsilonLow: 1 - config.clip_low_threshold,
        epsilonHigh: config.clip_high_threshold - 1,
        dualClipBound: null,
        logRatioClamp: Number.POSITIVE_INFINITY,
      },
    ),
};

const cispo: TinkerLoss = {
  inputs: ['logprobs', 'advantages'],
  configDefaults: { clip_low_threshold: 0, clip_high_threshold: 4 },
  needsLogprobs: true,
  term: (logprob, { samplingLogprob, advantage }, config) =>
    cispoToken(
      { logprob, oldLogprob: samplingLogprob, advantage, offPolicy: false },
      {
        aggregation: 'token-mean',
        rolloutCorrection: noRolloutCorrection,
        epsilonLow: 1 - config.clip_low_threshold,
        epsilonHigh: config.clip_high_threshold - 1,
      },
    ),
};

export const tinkerLosses = new Registry<TinkerLoss>('Tinker loss_fn', (registry) =>
  registry
    .register('cross_entropy', crossEntropy)
    .register('importance_sampling', importanceSampling)
    .register('ppo', ppo)
    .register('cispo', cispo),
);
