// RLOO advantage: each sample's baseline is the mean reward of the other G−1 samples of its prompt,
//   A_i = r_i − (1/(G−1)) Σ_{j≠i} r_j  =  G/(G−1) · (r_i − mean(r)).
// Papers: "Back to Basics: Revisiting REINFORCE Style Optimization for Learning from Human Feedback in
// LLMs" (Ahmadian et al. 2024), arXiv 2402.14740; the estimator is from Kool et al. 2019, "Buy 4 REINFORCE
// Samples, Get a Baseline for Free!". Same formula as verl `compute_rloo_outcome_advantage`, which uses the
// G/(G−1) form. The baseline excludes the sample itself, so the policy gradient stays unbiased.
// Deviation: verl gives a group of one sample A = r; we reject G < 2 with a ConfigError.
import { z } from 'zod';
import { defineAdvantage, includeAll, type RewardGroup } from './estimator.ts';
import { mean } from './statistics.ts';

export const rlooOptionsSchema = z.strictObject({});
export type RlooOptions = z.output<typeof rlooOptionsSchema>;

export function rlooAdvantages(groups: readonly RewardGroup[]): number[][] {
  return groups.map(({ rewards }) => {
    const g = rewards.length;
    const mu = mean(rewards);
    return rewards.map((reward) => (g / (g - 1)) * (reward - mu));
  });
}

export const rloo = defineAdvantage({
  id: 'rloo',
  description: 'leave-one-out baseline: r_i − mean of the other samples of the prompt',
  paper: {
    title: 'Back to Basics: Revisiting REINFORCE Style Optimization for Learning from Human Feedback in LLMs',
    arxiv: '2402.14740',
  },
  minGroupSize: 2,
  optionsSchema: rlooOptionsSchema,
  compute: (groups) => ({ advantages: rlooAdvantages(groups), included: includeAll(groups) }),
});
