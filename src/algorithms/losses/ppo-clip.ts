// Clipped surrogate policy loss (PPO / GRPO / DAPO), per token, with r = π_θ/π_old = exp(logp − logp_old):
//   ℓ = max(−A·r, −A·clip(r, 1−ε_low, 1+ε_high))
//   dual clip (A < 0 only): ℓ = min(ℓ, −A·c)
//   ∂ℓ/∂logp = −A·r where the unclipped branch is active, 0 where a clip bound is.
// Papers: "Proximal Policy Optimization Algorithms" (Schulman et al. 2017), arXiv 1707.06347;
// clip-higher (ε_high > ε_low) from "DAPO: An Open-Source LLM Reinforcement Learning System at Scale"
// (Yu et al. 2025), arXiv 2503.14476; dual clip from "Mastering Complex Control in MOBA Games with Deep
// Reinforcement Learning" (Ye et al. 2020), arXiv 1912.09729.
//
// Defaults: ε_low 0.2, ε_high 0.28 (DAPO paper and recipe scripts: clip_ratio_low/high), token-mean
// aggregation (DAPO). Dual clip c = 3 and the clamp of logp − logp_old to ±20 are from verl
// `compute_policy_loss_vanilla`, which applies dual clip always; set dualClipBound: null to turn it off
// (plain PPO). Clip fractions follow verl: a token counts as clipped when the clipped branch is strictly
// larger (A > 0 and r > 1+ε_high: 'high'; A < 0 and r < 1−ε_low: 'low'); dual-clipped tokens are counted
// separately (verl pg_clipfrac_lower).
import { z } from 'zod';
import {
  aggregationOptionsShape,
  computeTokenLoss,
  defineLoss,
  type LossSequence,
  type PolicyLossResult,
  type TokenInput,
  type TokenTerm,
} from './policy-loss.ts';

export const ppoClipOptionsSchema = z.strictObject({
  ...aggregationOptionsShape,
  /** Lower clip offset: r is clipped below at 1 − epsilonLow (DAPO/PPO: 0.2). */
  epsilonLow: z.number().nonnegative().default(0.2),
  /** Upper clip offset: r is clipped above at 1 + epsilonHigh (DAPO clip-higher: 0.28; PPO: 0.2). */
  epsilonHigh: z.number().nonnegative().default(0.28),
  /** Dual-clip bound c > 1 for negative advantages (verl clip_ratio_c = 3); null = no dual clip. */
  dualClipBound: z.number().gt(1).nullable().default(3),
  /** |logp − logp_old| is clamped to this before exp (verl: 20). */
  logRatioClamp: z.number().positive().default(20),
});
export type PpoClipOptions = z.output<typeof ppoClipOptionsSchema>;

export function ppoClipToken(token: TokenInput, options: PpoClipOptions): TokenTerm {
  const { advantage: a } = token;
  const rawLogRatio = token.logprob - token.oldLogprob;
  const logRatio = Math.min(options.logRatioClamp, Math.max(-options.logRatioClamp, rawLogRatio));
  const inClampRange = logRatio === rawLogRatio;
  const r = Math.exp(logRatio);
  const clippedRatio = Math.min(1 + options.epsilonHigh, Math.max(1 - options.epsilonLow, r));
  const unclipped = -a * r;
  const clipped = -a * clippedRatio;
  let term: TokenTerm =
    clipped > unclipped
      ? { value: clipped, derivative: 0, clipped: a > 0 ? 'high' : 'low' }
      : { value: unclipped, derivative: inClampRange ? -a * r : 0 };
  if (options.dualClipBound !== null && a < 0 && term.value > -a * options.dualClipBound) {
    term = { value: -a * options.dualClipBound, derivative: 0, clipped: 'dual' };
  }
  return term;
}

export function ppoClipLoss(sequences: readonly LossSequence[], options: PpoClipOptions): PolicyLossResult {
  return computeTokenLoss(sequences, options, ppoClipToken, true);
}

export const ppoClip = defineLoss({
  id: 'ppo-clip',
  description: 'clipped surrogate with asymmetric (clip-higher) bounds and optional dual clip',
  paper: {
    title:
      'Proximal Policy Optimization Algorithms (clip-higher: DAPO, arXiv 2503.14476; dual clip: arXiv 1912.09729)',
    arxiv: '1707.06347',
  },
  optionsSchema: ppoClipOptionsSchema,
  tokenLoss: ppoClipToken,
  requireOldLogprobs: true,
});
