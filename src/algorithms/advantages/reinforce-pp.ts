// REINFORCE++ advantage: normalise the rewards over the whole batch (all samples of all prompts),
//   A = (r − μ_batch) / sqrt(σ²_batch + ε),
// optionally after subtracting each prompt's group mean first (verl `reinforce_plus_plus_baseline`,
// "REINFORCE++-baseline").
// Paper: "REINFORCE++: A Simple and Efficient Approach for Aligning Large Language Models" (Hu 2025),
// arXiv 2501.03262.
//
// From the authors' code: verl `compute_reinforce_plus_plus_outcome_advantage` whitens with
// `masked_whiten`, which uses the Bessel-corrected variance and ε = 1e-8 inside the square root; we keep
// both as defaults. Deviation: verl and OpenRLHF whiten per token (a long response counts once per
// token in μ and σ, and the KL-shaped return-to-go can vary along the sequence); we whiten per sample
// over sequence-level rewards, which is the same thing when all responses have equal length and the
// reward is a single outcome score. Per-token KL reward shaping, if wanted, goes into the reward first
// (see ../kl.ts).
import { z } from 'zod';
import { defineAdvantageEstimator, includeAll, type RewardGroup } from './estimator.ts';
import { mean, standardDeviation } from './statistics.ts';

export const reinforcePlusPlusOptionsSchema = z.strictObject({
  /** Added to the batch variance inside the square root (verl masked_whiten: 1e-8). */
  epsilon: z.number().nonnegative().default(1e-8),
  /** 'sample' (Bessel-corrected, verl masked_var unbiased=True) or 'population'. */
  std: z.enum(['sample', 'population']).default('sample'),
  /** Subtract each prompt's group mean before batch normalisation (REINFORCE++-baseline). */
  groupBaseline: z.boolean().default(false),
});
export type ReinforcePlusPlusOptions = z.output<typeof reinforcePlusPlusOptionsSchema>;

export function reinforcePlusPlusAdvantages(
  groups: readonly RewardGroup[],
  options: ReinforcePlusPlusOptions,
): number[][] {
  const centred = groups.map(({ rewards }) => {
    const baseline = options.groupBaseline ? mean(rewards) : 0;
    return rewards.map((reward) => reward - baseline);
  });
  const all = centred.flat();
  if (all.length === 0) return centred;
  const mu = mean(all);
  const sigma = standardDeviation(all, options.std);
  const scale = 1 / Math.sqrt(sigma * sigma + options.epsilon);
  return centred.map((values) => values.map((value) => (value - mu) * scale));
}

export const reinforcePlusPlus = defineAdvantageEstimator({
  name: 'reinforce-pp',
  description: 'REINFORCE++: rewards whitened with the global batch mean and std (optional group baseline)',
  paper: 'REINFORCE++ (Hu 2025), arXiv 2501.03262',
  minGroupSize: 1,
  optionsSchema: reinforcePlusPlusOptionsSchema,
  compute: (groups, options) => ({
    advantages: reinforcePlusPlusAdvantages(groups, options),
    included: includeAll(groups),
  }),
});
