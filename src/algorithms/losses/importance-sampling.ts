// Importance-sampling policy gradient (REINFORCE with an importance ratio, no clipping), per token:
//   ℓ = −A·r,  r = exp(logp − logp_old),   ∂ℓ/∂logp = −A·r.
// On-policy (logp = logp_old, or oldLogprobs absent) the weight is −A: plain REINFORCE,
// "Simple Statistical Gradient-Following Algorithms for Connectionist Reinforcement Learning"
// (Williams 1992). Same per-token form as Tinker's built-in 'importance_sampling' loss. No paper-specific
// defaults; the ratio is not clamped, so keep the policies close (few steps per batch).
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

export const importanceSamplingOptionsSchema = z.strictObject({ ...aggregationOptionsShape });
export type ImportanceSamplingOptions = z.output<typeof importanceSamplingOptionsSchema>;

export function importanceSamplingToken(token: TokenInput): TokenTerm {
  const r = Math.exp(token.logprob - token.oldLogprob);
  return { value: -token.advantage * r, derivative: -token.advantage * r };
}

export function importanceSamplingLoss(
  sequences: readonly LossSequence[],
  options: ImportanceSamplingOptions,
): PolicyLossResult {
  return computeTokenLoss(sequences, options, importanceSamplingToken, false);
}

export const importanceSampling = defineLoss({
  id: 'importance-sampling',
  description: 'REINFORCE with an unclipped importance ratio π_θ/π_old (plain REINFORCE on-policy)',
  paper: {
    title:
      'Simple statistical gradient-following algorithms for connectionist reinforcement learning (Williams 1992)',
    code: 'thinking-machines-lab/tinker importance_sampling loss',
  },
  optionsSchema: importanceSamplingOptionsSchema,
  tokenLoss: importanceSamplingToken,
  requireOldLogprobs: false,
});
