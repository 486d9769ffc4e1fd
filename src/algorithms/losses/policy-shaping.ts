// LUFFY mixed-policy loss with policy shaping. Tokens from the policy's own rollouts (offPolicy false)
// take the unclipped importance-sampling term ℓ = −A·r (LUFFY `loss_remove_clip=True`); tokens copied
// from an expert trace (offPolicy true) take
//   ℓ = −A·f(π),  f(p) = p/(p+γ),  π = exp(logp),     ∂ℓ/∂logp = −A·γ·π/(π+γ)²
// with no importance denominator and no clip (the expert's probability is taken as 1).
// Paper: "Learning to Reason under Off-Policy Guidance" (Yan et al. 2025), arXiv 2504.14945; code
// ElliottYan/LUFFY mix_core_alg.py (`p_div_p_0.1`, γ = 0.1), per reference/curricula.md B3.
//
// Deviation: LUFFY aggregates with Σ(ℓ·mask)/max_len without the 1/B of our 'seq-mean-token-sum-norm'
// (a constant factor); the default here is token-mean. The optional off-policy clamps of LUFFY are left out.
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

export const policyShapingOptionsSchema = z.strictObject({
  ...aggregationOptionsShape,
  /** γ in f(p) = p/(p+γ) (LUFFY: 0.1). */
  gamma: z.number().positive().default(0.1),
});
export type PolicyShapingOptions = z.output<typeof policyShapingOptionsSchema>;

export function policyShapingToken(token: TokenInput, options: PolicyShapingOptions): TokenTerm {
  const a = token.advantage;
  if (!token.offPolicy) {
    const r = Math.exp(token.logprob - token.oldLogprob);
    return { value: -a * r, derivative: -a * r };
  }
  const p = Math.exp(token.logprob);
  const g = options.gamma;
  return { value: (-a * p) / (p + g), derivative: (-a * g * p) / (p + g) ** 2 };
}

export function policyShapingLoss(
  sequences: readonly LossSequence[],
  options: PolicyShapingOptions,
): PolicyLossResult {
  return computeTokenLoss(sequences, options, policyShapingToken, false);
}

export const policyShaping = defineLoss({
  id: 'policy-shaping',
  description: 'LUFFY: on-policy IS term plus p/(p+γ)-shaped term on off-policy (expert) tokens',
  paper: {
    title: 'Learning to Reason under Off-Policy Guidance',
    arxiv: '2504.14945',
    code: 'ElliottYan/LUFFY mix_src/mix_core_alg.py',
  },
  optionsSchema: policyShapingOptionsSchema,
  tokenLoss: policyShapingToken,
  requireOldLogprobs: false,
});
