// ReMax advantage: the reward minus the reward of the policy's own greedy completion of the same prompt,
//   A_i = r_i − r(ŷ_greedy),
// a baseline that costs one extra (greedy, temperature 0) generation per prompt instead of a value model
// or a group. Paper: "ReMax: A Simple, Effective, and Efficient Reinforcement Learning Method for Aligning
// Large Language Models" (Li et al. 2024), arXiv 2310.10505, Algorithm 1. Reference: verl
// `compute_remax_outcome_advantage` (core_algos.py; the trainer generates the baseline with do_sample
// off), read for the formula; none of it copied. The greedy completion and its reward come from the
// `remax` run component (src/training/components/remax), which samples and grades it after each rollout
// round and answers the step's advantages; the registered estimator is the fallback the loop asks first:
// A = r (no baseline), which is also what a group the component did not see (a self-play generator group)
// keeps. Deviation: verl broadcasts the outcome advantage over the tokens by a reverse cumulative sum of
// token rewards, which with one outcome reward at the last token is the same constant on every token.
import { z } from 'zod';
import { defineAdvantage, includeAll, type RewardGroup } from './estimator.ts';

/** r_i − the greedy completion's reward, for one group. */
export function remaxAdvantages(rewards: readonly number[], greedyReward: number): number[] {
  return rewards.map((reward) => reward - greedyReward);
}

export const remaxOptionsSchema = z.strictObject({});

export const remax = defineAdvantage({
  id: 'remax',
  description:
    "ReMax: r minus the reward of the policy's greedy completion of the prompt (one extra generation)",
  paper: {
    title:
      'ReMax: A Simple, Effective, and Efficient Reinforcement Learning Method for Aligning Large Language Models',
    arxiv: '2310.10505',
    code: 'volcengine/verl core_algos.py compute_remax_outcome_advantage',
  },
  minGroupSize: 1,
  optionsSchema: remaxOptionsSchema,
  // The fallback before the remax component's baselines replace it: no baseline.
  compute: (groups: readonly RewardGroup[]) => ({
    advantages: groups.map((group) => [...group.rewards]),
    included: includeAll(groups),
  }),
});
