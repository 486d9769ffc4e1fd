// Reinforce-Rej: reject every prompt whose samples are all correct or all wrong (all rewards equal), and
// give the remaining samples the mean-centred reward A_i = r_i − mean(r) of their group.
// Paper: "A Minimalist Approach to LLM Reasoning: from Rejection Sampling to Reinforce" (Xiong et al.
// 2025), arXiv 2504.11343, §5. The paper's finding: GRPO's gain over plain REINFORCE comes mostly from
// discarding all-wrong prompts, not from the std normalisation.
//
// Rejected prompts: the authors' code (Minimal-RL, on verl) keeps their samples in the batch with
// advantage 0, so they still count in the token-mean normaliser (and in a KL loss term, if any). That is
// the default here (`rejected: 'zero-advantage'`). `rejected: 'drop'` leaves them out of the batch
// (included = false), which makes the remaining weights larger by all tokens / kept tokens.
// Baseline: the authors' code (Minimal-RL `compute_reinforce_rej_outcome_advantage`) uses the raw
// reward, which is ±1 in their setup, so a kept sample's sign already says right or wrong. Rewards here
// are usually 0/1, where the raw reward would give wrong answers no push at all, so the default subtracts
// the group mean ('group-mean', a deviation); 'none' is the authors' raw reward (use it with ±1 rewards).
import { z } from 'zod';
import {
  type AdvantageEstimate,
  defineAdvantage,
  type RewardGroup,
  rejectedSampleModes,
} from './estimator.ts';
import { mean } from './statistics.ts';

export const reinforceRejOptionsSchema = z.strictObject({
  /** 'group-mean': r − mean(r); 'none': the raw reward. */
  baseline: z.enum(['group-mean', 'none']).default('group-mean'),
  /** Rejected prompts' samples: kept with advantage 0 (authors' code) or dropped from the batch. */
  rejected: z.enum(rejectedSampleModes).default('zero-advantage'),
});
export type ReinforceRejOptions = z.output<typeof reinforceRejOptionsSchema>;

export function reinforceRejAdvantages(
  groups: readonly RewardGroup[],
  options: ReinforceRejOptions,
): AdvantageEstimate {
  const advantages: number[][] = [];
  const included: boolean[][] = [];
  for (const { rewards } of groups) {
    const keep = rewards.some((reward) => reward !== rewards[0]);
    const baseline = options.baseline === 'group-mean' ? mean(rewards) : 0;
    advantages.push(rewards.map((reward) => (keep ? reward - baseline : 0)));
    included.push(rewards.map(() => keep || options.rejected === 'zero-advantage'));
  }
  return { advantages, included };
}

export const reinforceRej = defineAdvantage({
  id: 'reinforce-rej',
  description: 'reject all-correct and all-wrong prompts (advantage 0); mean-centred reward for the rest',
  paper: {
    title: 'A Minimalist Approach to LLM Reasoning: from Rejection Sampling to Reinforce',
    arxiv: '2504.11343',
    code: 'RLHFlow/Minimal-RL',
  },
  minGroupSize: 2,
  optionsSchema: reinforceRejOptionsSchema,
  compute: reinforceRejAdvantages,
});
