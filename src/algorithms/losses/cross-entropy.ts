// Supervised fine-tuning (negative log-likelihood) as per-token weights: ℓ = −logp, ∂ℓ/∂logp = −1, times
// the aggregation coefficient; advantages are ignored and the mask may hold non-negative token weights.
// With token-mean aggregation this is the usual mean NLL over the target tokens. Equivalent to the backend's
// 'cross_entropy' loss with weights = the aggregation coefficients (src/core/policy.ts); having it here
// lets SFT terms be added to RL weights (ReLIFT, LUFFY-style mixing) and share the metrics.
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

export const crossEntropyOptionsSchema = z.strictObject({ ...aggregationOptionsShape });
export type CrossEntropyOptions = z.output<typeof crossEntropyOptionsSchema>;

export function crossEntropyToken(token: TokenInput): TokenTerm {
  return { value: -token.logprob, derivative: -1 };
}

export function crossEntropyLoss(
  sequences: readonly LossSequence[],
  options: CrossEntropyOptions,
): PolicyLossResult {
  return computeTokenLoss(sequences, options, crossEntropyToken, false);
}

export const crossEntropy = defineLoss({
  id: 'cross-entropy',
  description: 'supervised negative log-likelihood of the target tokens (SFT) as weights',
  optionsSchema: crossEntropyOptionsSchema,
  tokenLoss: crossEntropyToken,
  requireOldLogprobs: false,
});
