// GRPO advantage: A_i = (r_i − mean(r)) / (std(r) + ε) within each group of G samples of one prompt.
// Paper: "DeepSeekMath: Pushing the Limits of Mathematical Reasoning in Open Language Models",
// arXiv 2402.03300 (outcome supervision, §4.1.2).
//
// Std: the paper writes std(r) without saying which. The authors of the common implementations use
// torch.std, which is the Bessel-corrected sample std: verl `compute_grpo_outcome_advantage`
// (core_algos.py, ε = 1e-6 added to the std), TRL GRPOTrainer and OpenRLHF group_norm. We default to
// 'sample' to match them. It matters for small G: with G = 2 and rewards (1, 0) the sample std is 0.7071,
// giving A = ±0.7071, where the population std 0.5 gives A = ±1 (all advantages scale by sqrt((G−1)/G)).
// With a fixed G the choice is a constant factor that the learning rate absorbs, except where the absolute
// scale of A matters (ε in the denominator, a KL or entropy term added to the loss, mixing group sizes).
// A group whose rewards are all equal gets A = 0 (0 / ε).
//
// Deviation from verl: verl gives a group of one sample A = r (mean 0, std 1); we reject G < 2 with a
// ConfigError, because the GRPO baseline is undefined there.
import { z } from 'zod';
import { defineAdvantage, includeAll, type RewardGroup } from './estimator.ts';
import { mean, standardDeviation } from './statistics.ts';

export const grpoOptionsSchema = z.strictObject({
  /** Added to the std before dividing (verl default 1e-6). */
  epsilon: z.number().nonnegative().default(1e-6),
  /** 'sample' (Bessel-corrected, torch.std, verl/TRL/OpenRLHF) or 'population'. */
  std: z.enum(['sample', 'population']).default('sample'),
});
export type GrpoOptions = z.output<typeof grpoOptionsSchema>;

export function grpoAdvantages(groups: readonly RewardGroup[], options: GrpoOptions): number[][] {
  return groups.map(({ rewards }) => {
    const mu = mean(rewards);
    const sigma = standardDeviation(rewards, options.std);
    return rewards.map((reward) => (reward - mu) / (sigma + options.epsilon));
  });
}

export const grpo = defineAdvantage({
  id: 'grpo',
  description: 'group-normalised reward: (r − group mean) / (group std + ε)',
  paper: {
    title: 'DeepSeekMath: Pushing the Limits of Mathematical Reasoning in Open Language Models',
    arxiv: '2402.03300',
  },
  minGroupSize: 2,
  optionsSchema: grpoOptionsSchema,
  compute: (groups, options) => ({
    advantages: grpoAdvantages(groups, options),
    included: includeAll(groups),
  }),
});
