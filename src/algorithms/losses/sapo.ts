// SAPO: a smooth, temperature-controlled gate on the token ratio instead of a hard clip. Per token, with
// r = π_θ/π_old and τ = τ_pos when A > 0, τ_neg otherwise,
//   f(r) = σ(τ·(r − 1)) · 4/τ,    ℓ = −f(r)·A,    ∂ℓ/∂logp = −A · 4·σ(1 − σ)·r   (σ = σ(τ(r − 1))).
// At r = 1 the gate's slope is 1, so the on-policy gradient is REINFORCE's −A per token; away from 1 the
// gradient decays smoothly (a soft trust region) rather than dropping to 0 at a bound, and a larger τ_neg
// damps negative-advantage tokens faster (the paper's asymmetry). Paper: "Soft Adaptive Policy
// Optimization" (Gao et al., Qwen 2025), arXiv 2511.20347. Reference: verl `compute_policy_loss_sapo`
// (verl/trainer/ppo/core_algos.py) and its recipe examples/sapo_trainer, read for the formula and the
// defaults; none of it is copied.
//
// Defaults from verl (actor.yaml and the recipe): τ_pos 1.0, τ_neg 1.05; log r clamped to ±20 before exp
// (the gradient is 0 where it clamps); seq-mean-token-mean aggregation. Deviation: verl aggregates SAPO
// with seq-mean-token-mean whatever loss_agg_mode says; here it is the default and the other modes are
// honoured when asked for (the KL term follows the same mode). losses/clipfrac is 0 (nothing is clipped),
// as in verl. Being per-token, SAPO can carry expert tokens (guidance with a trace) like ppo-clip.
import { z } from 'zod';
import { aggregationModes } from './aggregation.ts';
import { aggregationOptionsShape, defineLoss, type TokenInput, type TokenTerm } from './policy-loss.ts';

export const sapoOptionsSchema = z.strictObject({
  ...aggregationOptionsShape,
  /** SAPO's own aggregation (verl forces it): the mean over sequences of each sequence's token mean. */
  aggregation: z.enum(aggregationModes).default('seq-mean-token-mean'),
  /** Gate temperature for tokens with A > 0 (verl: 1.0). */
  tauPositive: z.number().positive().default(1),
  /** Gate temperature for tokens with A ≤ 0 (verl: 1.05). */
  tauNegative: z.number().positive().default(1.05),
  /** |logp − logp_old| is clamped to this before exp (verl: 20). */
  logRatioClamp: z.number().positive().default(20),
});
export type SapoOptions = z.output<typeof sapoOptionsSchema>;

const sigmoid = (x: number) => 1 / (1 + Math.exp(-x));

/** The gate's value f(r) and its slope df/dlogp at a token. */
export function sapoGate(token: TokenInput, options: SapoOptions): { gate: number; slope: number } {
  const raw = token.logprob - token.oldLogprob;
  const logRatio = Math.min(options.logRatioClamp, Math.max(-options.logRatioClamp, raw));
  const r = Math.exp(logRatio);
  const tau = token.advantage > 0 ? options.tauPositive : options.tauNegative;
  const sig = sigmoid(tau * (r - 1));
  return { gate: (sig * 4) / tau, slope: logRatio === raw ? 4 * sig * (1 - sig) * r : 0 };
}

export function sapoToken(token: TokenInput, options: SapoOptions): TokenTerm {
  const { gate, slope } = sapoGate(token, options);
  return { value: -gate * token.advantage, derivative: -slope * token.advantage };
}

export const sapo = defineLoss({
  id: 'sapo',
  description:
    'soft adaptive gate σ(τ(r−1))·4/τ on the token ratio instead of a hard clip (τ asymmetric in the sign of A)',
  paper: {
    title: 'Soft Adaptive Policy Optimization',
    arxiv: '2511.20347',
    code: 'volcengine/verl core_algos.py compute_policy_loss_sapo',
  },
  optionsSchema: sapoOptionsSchema,
  tokenLoss: sapoToken,
  requireOldLogprobs: true,
});
