// REINFORCE++ advantage: whiten the outcome rewards over every response token of the batch,
//   A_i = (r_i − μ) / sqrt(σ² + ε),   μ = Σ_i L_i r_i / Σ_i L_i,   σ² = Σ_i L_i (r_i − μ)² / (Σ_i L_i − 1),
// where L_i is the length of completion i in tokens: each response counts once per token, so a long
// response weighs more in μ and σ. Optionally each prompt's group mean is subtracted first
// (REINFORCE++-baseline; verl `reinforce_plus_plus_baseline`).
// Paper: "REINFORCE++: A Simple and Efficient Approach for Aligning Large Language Models" (Hu 2025),
// arXiv 2501.03262.
//
// Reference code: verl core_algos.py (OpenRLHF, the paper author's framework, also whitens over tokens).
// `compute_reinforce_plus_plus_outcome_advantage` places the outcome reward on the last response token,
// takes the return-to-go with γ = 1 (so every token of response i has return r_i) and calls
// `masked_whiten(returns, response_mask)`: the token-weighted mean and the Bessel-corrected variance over
// the token count above, ε = 1e-8 inside the square root. `..._baseline_outcome_advantage` subtracts the
// group mean of the sequence scores, tiles the result over the response tokens and whitens it the same
// way. We match both, including the one-sample group: verl's baseline for a prompt with a single sample
// is 0 (its reward survives), not the sample's own reward; such groups arise under the adaptive rollout
// budget. The 'whiten: sample' option counts each response once instead (our behaviour before 2026-12;
// it differs from verl whenever lengths exceed 1 token, by sqrt((N·L − 1)/(L·(N − 1))) = 6% at N = 8
// responses of L = 10 tokens, and more with unequal lengths).
//
// Deviations from verl: (1) every token of a response gets the same advantage. verl's returns-to-go
// differ along a response only when per-token rewards are shaped (use_kl_in_reward: −β·kl_t on each
// token); here a KL reward penalty (../kl.ts, algorithm.kl.mode 'reward') is one sequence-level amount
// added to the reward first, so a token's advantage includes the KL of earlier tokens too. (2) verl
// raises an error when the batch holds one response token (Bessel divisor 0); we take σ = 0 there, and a
// batch of empty completions gets advantage 0.
import { z } from 'zod';
import { defineAdvantage, includeAll, type RewardGroup } from './estimator.ts';
import { mean } from './statistics.ts';

export const reinforcePlusPlusOptionsSchema = z.strictObject({
  /** Added to the batch variance inside the square root (verl masked_whiten: 1e-8). */
  epsilon: z.number().nonnegative().default(1e-8),
  /** 'sample' (Bessel-corrected over the count, verl masked_var unbiased=True) or 'population'. */
  std: z.enum(['sample', 'population']).default('sample'),
  /** Subtract each prompt's group mean before batch whitening (REINFORCE++-baseline). */
  groupBaseline: z.boolean().default(false),
  /** 'token': whiten over every response token, as verl (default); 'sample': each response counts once. */
  whiten: z.enum(['token', 'sample']).default('token'),
});
export type ReinforcePlusPlusOptions = z.output<typeof reinforcePlusPlusOptionsSchema>;

export function reinforcePlusPlusAdvantages(
  groups: readonly RewardGroup[],
  options: ReinforcePlusPlusOptions,
): number[][] {
  const centred = groups.map(({ rewards }) => {
    // verl: a prompt with one sample has group mean 0.
    const baseline = options.groupBaseline && rewards.length > 1 ? mean(rewards) : 0;
    return rewards.map((reward) => reward - baseline);
  });
  // Weight of each sample in the statistics: its token count, or 1.
  const counts = groups.map(({ rewards, lengths }) =>
    rewards.map((_, i) => (options.whiten === 'token' ? (lengths?.[i] ?? 1) : 1)),
  );
  let total = 0;
  let weightedSum = 0;
  centred.forEach((values, g) => {
    values.forEach((value, i) => {
      total += counts[g][i];
      weightedSum += counts[g][i] * value;
    });
  });
  if (total === 0) return centred.map((values) => values.map(() => 0));
  const mu = weightedSum / total;
  let squares = 0;
  centred.forEach((values, g) => {
    values.forEach((value, i) => {
      squares += counts[g][i] * (value - mu) ** 2;
    });
  });
  const divisor = options.std === 'sample' ? total - 1 : total;
  const variance = divisor > 0 ? squares / divisor : 0;
  const scale = 1 / Math.sqrt(variance + options.epsilon);
  return centred.map((values) => values.map((value) => (value - mu) * scale));
}

export const reinforcePlusPlus = defineAdvantage({
  id: 'reinforce-pp',
  description:
    'REINFORCE++: rewards whitened over all response tokens of the batch (optional group baseline)',
  paper: {
    title: 'REINFORCE++: A Simple and Efficient Approach for Aligning Large Language Models',
    arxiv: '2501.03262',
    code: 'OpenRLHF/OpenRLHF',
  },
  minGroupSize: 1,
  optionsSchema: reinforcePlusPlusOptionsSchema,
  compute: (groups, options) => ({
    advantages: reinforcePlusPlusAdvantages(groups, options),
    included: includeAll(groups),
  }),
});
