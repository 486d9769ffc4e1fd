// OPO advantage: the reward minus the length-weighted mean reward of the prompt's samples,
//   b = Σ_j |y_j|·r_j / Σ_j |y_j|,    A_i = r_i − b,
// which is the variance-minimising constant baseline for a sequence-level policy gradient when the
// squared norm of a sample's score function grows with its length (the paper's assumption). Paper:
// "On-Policy RL with Optimal Reward Baseline" (Hao et al. 2025), arXiv 2505.23585, §3. Reference: verl
// `compute_opo_outcome_advantage` (verl/trainer/ppo/core_algos.py), read for the formula; none of it
// copied. |y| is the number of loss-carrying tokens of a completion (RewardGroup.lengths, which the
// trainer passes; verl: response_mask.sum). The paper pairs it with exact on-policy training (one update
// per batch, epochs 1 and minibatches 1) and no std normalisation; nothing here enforces those.
// Deviation: verl gives a group of one sample the baseline 0 (A = r); we reject G < 2 with a ConfigError,
// as for every group-baseline estimator here. Absent lengths count 1 per sample (b = the group mean).
import { z } from 'zod';
import { defineAdvantage, includeAll, type RewardGroup } from './estimator.ts';

export const opoOptionsSchema = z.strictObject({});
export type OpoOptions = z.output<typeof opoOptionsSchema>;

export function opoAdvantages(groups: readonly RewardGroup[]): number[][] {
  return groups.map(({ rewards, lengths }) => {
    const weights = lengths ?? rewards.map(() => 1);
    const total = weights.reduce((sum, length) => sum + length, 0);
    const baseline = total > 0 ? rewards.reduce((sum, reward, i) => sum + weights[i] * reward, 0) / total : 0;
    return rewards.map((reward) => reward - baseline);
  });
}

export const opo = defineAdvantage({
  id: 'opo',
  description: 'optimal baseline for on-policy RL: r − the length-weighted mean reward of the prompt',
  paper: {
    title: 'On-Policy RL with Optimal Reward Baseline',
    arxiv: '2505.23585',
    code: 'volcengine/verl core_algos.py compute_opo_outcome_advantage',
  },
  minGroupSize: 2,
  optionsSchema: opoOptionsSchema,
  compute: (groups) => ({ advantages: opoAdvantages(groups), included: includeAll(groups) }),
});
