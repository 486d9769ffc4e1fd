// The pass@k advantage of verl's grpo_passk: only the best sample of a prompt's group gets an advantage,
// the margin by which it beats the second best,
//   A_best = (r_max − r_second) / (std(r) + ε),    A_i = 0 for every other sample,
// (the division only with `normaliseByStd`, verl's norm_adv_by_std_in_grpo, default on; std is the
// Bessel-corrected torch.std). With k = G this is the leave-one-out gradient of max-reward@G: removing a
// sample changes the group's maximum only if it is the unique best, and then by r_max − r_second. Paper:
// "Optimizing Language Models for Inference Time Objectives using Reinforcement Learning" (Tang et al.
// 2025), arXiv 2503.19595. Reference: verl `compute_grpo_passk_outcome_advantage`
// (verl/trainer/ppo/core_algos.py), read for the formula and defaults (ε 1e-6); none of it copied.
// Ties: when the two best rewards are equal the margin is 0 and every advantage is 0, so which of them is
// "the best" never matters. With binary rewards the gradient is non-zero only for a group with exactly one
// correct sample. Deviation: none known (verl raises on G < 2, as the ConfigError here).
import { z } from 'zod';
import { defineAdvantage, includeAll, type RewardGroup } from './estimator.ts';
import { standardDeviation } from './statistics.ts';

export const grpoPasskOptionsSchema = z.strictObject({
  /** Divide the margin by the group's std + ε (verl norm_adv_by_std_in_grpo: true). */
  normaliseByStd: z.boolean().default(true),
  /** Added to the std before dividing (verl: 1e-6). */
  epsilon: z.number().nonnegative().default(1e-6),
});
export type GrpoPasskOptions = z.output<typeof grpoPasskOptionsSchema>;

export function grpoPasskAdvantages(groups: readonly RewardGroup[], options: GrpoPasskOptions): number[][] {
  return groups.map(({ rewards }) => {
    let best = 0;
    rewards.forEach((reward, i) => {
      if (reward > rewards[best]) best = i;
    });
    const second = Math.max(...rewards.filter((_, i) => i !== best));
    let margin = rewards[best] - second;
    if (options.normaliseByStd) margin /= standardDeviation(rewards, 'sample') + options.epsilon;
    return rewards.map((_, i) => (i === best ? margin : 0));
  });
}

export const grpoPassk = defineAdvantage({
  id: 'grpo-passk',
  description: 'pass@k: only the best sample of a prompt gets an advantage, its margin over the second best',
  paper: {
    title: 'Optimizing Language Models for Inference Time Objectives using Reinforcement Learning',
    arxiv: '2503.19595',
    code: 'volcengine/verl core_algos.py compute_grpo_passk_outcome_advantage',
  },
  minGroupSize: 2,
  optionsSchema: grpoPasskOptionsSchema,
  compute: (groups, options) => ({
    advantages: grpoPasskAdvantages(groups, options),
    included: includeAll(groups),
  }),
});
