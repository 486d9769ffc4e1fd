// GAE: generalised advantage estimation with a learned critic (PPO proper). For one completion of T loss
// tokens with values V_t (the critic's estimate at the state before token t), an outcome reward r given at
// the last token, and V_T = 0 after it,
//   δ_t = r_t + γ·V_{t+1} − V_t   (r_t = r at t = T − 1, else 0),    A_t = Σ_{l ≥ 0} (γλ)^l · δ_{t+l},
// computed backwards (A_t = δ_t + γλ·A_{t+1}); the critic's targets are the returns R_t = A_t + V_t. The
// advantages of the batch are then whitened over every loss token (mean 0, Bessel-corrected variance 1,
// + 1e-8 inside the square root). Paper: "High-Dimensional Continuous Control Using Generalized Advantage
// Estimation" (Schulman et al. 2016), arXiv 1506.02438; for LLM RL, PPO as in "Training language models to
// follow instructions with human feedback" (Ouyang et al. 2022). Reference: verl
// `compute_gae_advantage_return` and `masked_whiten` (verl/trainer/ppo/core_algos.py,
// verl/utils/torch_functional.py), read for the formulas and defaults (γ 1, λ 1, whitening on); none of
// it copied. The values come from the `algorithm.critic` block's value model
// (src/training/components/critic); the registered `gae` estimator is the scalar fallback the loop asks
// first: with V ≡ 0 and γ = λ = 1 every token's advantage is the reward, which is what it returns, and
// the critic's per-token advantages replace it. Config validation refuses `gae` without the critic block.
// Deviation: none known in the formulas; every token of a completion carries loss here (no observation
// tokens inside a completion: the critic refuses multi-turn environments), so verl's mask carry-over of
// values across observation tokens never applies.
import { z } from 'zod';
import { defineAdvantage, includeAll, type RewardGroup } from './estimator.ts';

/** One completion's per-token advantages and the critic's targets. */
export interface GaeResult {
  advantages: number[];
  returns: number[];
}

/** GAE of one completion with an outcome reward at its last token (values: one per loss token). */
export function gae(reward: number, values: readonly number[], gamma: number, lambda: number): GaeResult {
  const length = values.length;
  const advantages = new Array<number>(length);
  let next = 0;
  let running = 0;
  for (let t = length - 1; t >= 0; t--) {
    const r = t === length - 1 ? reward : 0;
    const delta = r + gamma * next - values[t];
    running = delta + gamma * lambda * running;
    advantages[t] = running;
    next = values[t];
  }
  return { advantages, returns: advantages.map((advantage, t) => advantage + values[t]) };
}

/**
 * Whitens every value of the rows together: (x − mean) / sqrt(var + 1e-8), var Bessel-corrected (verl
 * masked_whiten). Fewer than two values: returned centred, unscaled (verl raises there).
 */
export function whiten(rows: readonly (readonly number[])[]): number[][] {
  const all = rows.flat();
  if (all.length === 0) return rows.map(() => []);
  const mean = all.reduce((sum, value) => sum + value, 0) / all.length;
  if (all.length < 2) return rows.map((row) => row.map((value) => value - mean));
  const variance = all.reduce((sum, value) => sum + (value - mean) ** 2, 0) / (all.length - 1);
  const scale = 1 / Math.sqrt(variance + 1e-8);
  return rows.map((row) => row.map((value) => (value - mean) * scale));
}

export const gaeOptionsSchema = z.strictObject({});

export const gaeEstimator = defineAdvantage({
  id: 'gae',
  description:
    'GAE with a learned critic (PPO): per-token advantages from the algorithm.critic value model, whitened over the batch',
  paper: {
    title: 'High-Dimensional Continuous Control Using Generalized Advantage Estimation',
    arxiv: '1506.02438',
    code: 'volcengine/verl core_algos.py compute_gae_advantage_return',
  },
  minGroupSize: 1,
  optionsSchema: gaeOptionsSchema,
  // The fallback before the critic's per-token advantages replace it: V ≡ 0, γ = λ = 1 gives A_t = r.
  compute: (groups: readonly RewardGroup[]) => ({
    advantages: groups.map((group) => [...group.rewards]),
    included: includeAll(groups),
  }),
});
