// CISPO: clip the importance-sampling weight, not the update. Per token,
//   ℓ = −sg[clip(r, 1−ε_low, 1+ε_high)] · A · logp,    ∂ℓ/∂logp = −clip(r, …)·A,
// where sg is stop-gradient: every token keeps a gradient (PPO zeroes clipped tokens), and the weight is
// only bounded. Paper: "MiniMax-M1: Scaling Test-Time Compute Efficiently with Lightning Attention"
// (MiniMax 2025), arXiv 2506.13585, eq. 4–5.
//
// Defaults: ε_low 1.0 (lower bound 0, i.e. no lower clip, as the paper describes) and ε_high 4.0 (upper
// bound 5), the ScaleRL values as written in a SkyRL config docstring; other SkyRL configs use
// ε_low 0 / ε_high 5. The paper's own ε_high is [unverified]. Because of the stop-gradient, the reported
// loss value is the surrogate −clip(r)·A·logp, whose derivative with the clipped weight held fixed is the
// weight; it is not a quantity to compare across runs. losses/clipfrac counts tokens whose ratio lies
// outside the bounds, whatever the sign of A (the weight is bounded either way).
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

export const cispoOptionsSchema = z.strictObject({
  ...aggregationOptionsShape,
  /** The IS weight is clipped below at 1 − epsilonLow (1.0 = no lower clip). */
  epsilonLow: z.number().nonnegative().default(1),
  /** The IS weight is clipped above at 1 + epsilonHigh. */
  epsilonHigh: z.number().nonnegative().default(4),
});
export type CispoOptions = z.output<typeof cispoOptionsSchema>;

export function cispoToken(token: TokenInput, options: CispoOptions): TokenTerm {
  const r = Math.exp(token.logprob - token.oldLogprob);
  const upper = 1 + options.epsilonHigh;
  const lower = 1 - options.epsilonLow;
  const weight = Math.min(upper, Math.max(lower, r));
  const clipped = r > upper ? 'high' : r < lower ? 'low' : undefined;
  return { value: -weight * token.advantage * token.logprob, derivative: -weight * token.advantage, clipped };
}

export function cispoLoss(sequences: readonly LossSequence[], options: CispoOptions): PolicyLossResult {
  return computeTokenLoss(sequences, options, cispoToken, true);
}

export const cispo = defineLoss({
  id: 'cispo',
  description:
    'REINFORCE weighted by a clipped, stop-gradient importance ratio (every token keeps a gradient)',
  paper: {
    title: 'MiniMax-M1: Scaling Test-Time Compute Efficiently with Lightning Attention',
    arxiv: '2506.13585',
  },
  optionsSchema: cispoOptionsSchema,
  tokenLoss: cispoToken,
  requireOldLogprobs: true,
});
