// Dr. GRPO advantage: A_i = r_i − mean(r) within each group; no division by the group std.
// Paper: "Understanding R1-Zero-Like Training: A Critical Perspective" (Liu et al. 2025), arXiv 2503.20783.
//
// Dr. GRPO removes two biases of GRPO. This file removes only the first, the question-level difficulty
// bias of dividing by std(r). The second, the response-length bias of dividing each sequence's loss by its
// own length, is removed in loss aggregation: pair this estimator with the loss option
// `aggregation: 'seq-mean-token-sum-norm'` and a constant `tokenSumNormaliser` (the generation budget,
// MAX_TOKENS in the paper). TRL spells the same pairing `loss_type="dr_grpo"` + `scale_rewards="none"`
// (the same loss, 1/B included); verl spells it `norm_adv_by_std_in_grpo=false` +
// `loss_agg_mode=seq-mean-token-sum-norm`, whose loss has no 1/B (B times ours; see
// ../losses/aggregation.ts). With token-mean aggregation this is GRPO without std only.
import { z } from 'zod';
import { defineAdvantage, includeAll, type RewardGroup } from './estimator.ts';
import { mean } from './statistics.ts';

export const drGrpoOptionsSchema = z.strictObject({});
export type DrGrpoOptions = z.output<typeof drGrpoOptionsSchema>;

export function drGrpoAdvantages(groups: readonly RewardGroup[]): number[][] {
  return groups.map(({ rewards }) => {
    const mu = mean(rewards);
    return rewards.map((reward) => reward - mu);
  });
}

export const drGrpo = defineAdvantage({
  id: 'dr-grpo',
  description:
    'group-mean-centred reward, no std division (pair with seq-mean-token-sum-norm loss aggregation)',
  paper: {
    title: 'Understanding R1-Zero-Like Training: A Critical Perspective',
    arxiv: '2503.20783',
    code: 'sail-sg/understand-r1-zero',
  },
  minGroupSize: 2,
  optionsSchema: drGrpoOptionsSchema,
  compute: (groups) => ({ advantages: drGrpoAdvantages(groups), included: includeAll(groups) }),
});
