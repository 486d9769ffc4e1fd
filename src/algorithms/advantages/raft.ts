// RAFT (reward-ranked fine-tuning): train only on the best samples. Advantage 1 for the selected samples
// and 0 for the others. With the 'importance-sampling' loss on-policy this is SFT on the selected samples;
// with 'ppo-clip' it is RAFT++ (importance ratio + clipping).
// Papers: "RAFT: Reward rAnked FineTuning for Generative Foundation Model Alignment" (Dong et al. 2023),
// arXiv 2304.06767 (selection = the best of K samples per prompt by reward: select 'best');
// "A Minimalist Approach to LLM Reasoning: from Rejection Sampling to Reinforce" (Xiong et al. 2025),
// arXiv 2504.11343 (with verifiable rewards: keep every correct sample: select 'positive', the default).
//
// Rejected samples: the authors' code (Minimal-RL, on verl) keeps them in the batch with advantage 0, so
// they still count in the token-mean normaliser: the update is SFT on the selected samples scaled by
// (selected tokens / all tokens of the batch), and a KL loss term, if any, covers every sample. That is
// the default here (`rejected: 'zero-advantage'`). `rejected: 'drop'` leaves them out of the batch
// (included = false): exact SFT on the selected samples, weights larger by all tokens / selected tokens
// (about 2× at a 50% pass rate).
// Ties under 'best' go to the lowest sample index (deterministic). 'best' keeps the argmax even when it is
// wrong, as in the original RAFT; 'positive' keeps nothing from an all-wrong group.
import { z } from 'zod';
import {
  type AdvantageEstimate,
  defineAdvantage,
  type RewardGroup,
  rejectedSampleModes,
} from './estimator.ts';

export const raftOptionsSchema = z.strictObject({
  /** 'positive': every sample with reward ≥ positiveReward; 'best': the single best sample per prompt. */
  select: z.enum(['positive', 'best']).default('positive'),
  /** Reward at or above which a sample counts as positive (binary verifier rewards: 1). */
  positiveReward: z.number().default(1),
  /** Rejected samples: kept with advantage 0 (authors' code) or dropped from the batch and normaliser. */
  rejected: z.enum(rejectedSampleModes).default('zero-advantage'),
});
export type RaftOptions = z.output<typeof raftOptionsSchema>;

export function raftAdvantages(groups: readonly RewardGroup[], options: RaftOptions): AdvantageEstimate {
  const selected = groups.map(({ rewards }) => {
    if (options.select === 'positive') return rewards.map((reward) => reward >= options.positiveReward);
    let best = 0;
    for (let i = 1; i < rewards.length; i++) if (rewards[i] > rewards[best]) best = i;
    return rewards.map((_, i) => i === best);
  });
  return {
    advantages: selected.map((flags) => flags.map((flag) => (flag ? 1 : 0))),
    included: selected.map((flags) => flags.map((flag) => flag || options.rejected === 'zero-advantage')),
  };
}

export const raft = defineAdvantage({
  id: 'raft',
  description: 'reward-ranked fine-tuning: advantage 1 on the positive (or best) samples, 0 on the rest',
  paper: {
    title: 'RAFT: Reward rAnked FineTuning for Generative Foundation Model Alignment',
    arxiv: '2304.06767',
    code: 'RLHFlow/Minimal-RL (A Minimalist Approach to LLM Reasoning, arXiv 2504.11343)',
  },
  minGroupSize: 1,
  optionsSchema: raftOptionsSchema,
  compute: raftAdvantages,
});
