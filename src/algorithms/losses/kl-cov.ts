// KL-Cov: the unclipped importance-weighted surrogate −A·r on every token, plus a penalty coef·|log r| on
// the max(1, ⌊ratio · loss tokens⌋) loss tokens with the largest covariance cov_t (./token-covariance.ts):
//   ℓ_t = −A_t·r_t + [t selected]·coef·|logp_t − logp_old_t|,
//   ∂ℓ_t/∂logp_t = −A_t·r_t + [t selected]·coef·sign(logp_t − logp_old_t)   (0 at r = 1, as torch.abs).
// Paper: "The Entropy Mechanism of Reinforcement Learning for Reasoning Language Models" (Cui et al.
// 2025), arXiv 2505.22617, §5; authors' code PRIME-RL/Entropy-Mechanism-of-RL. Reference: verl
// `compute_policy_loss_kl_cov` (verl/trainer/ppo/core_algos.py), read for the formula and the defaults;
// none of it is copied.
//
// Defaults from verl's actor config (actor.yaml): ratio 2e-4, coef 0.1 (the function's docstring says 1;
// the config, which is what runs, says 0.1), token-mean aggregation; no clip and no clamp on r (verl has
// neither). Ties in the covariance go to the earlier token in batch order (torch.topk leaves them
// unspecified). losses/cov_selected_frac is the fraction of loss tokens penalised. Not offered for expert
// tokens (the covariance would mix them in).
import { z } from 'zod';
import {
  aggregationOptionsShape,
  type BatchTerm,
  defineLoss,
  type LossSequence,
  type TokenInput,
  type TokenTerm,
} from './policy-loss.ts';
import { placeKeys, selectionCount, tokenCovariances } from './token-covariance.ts';

export const klCovOptionsSchema = z.strictObject({
  ...aggregationOptionsShape,
  /** Fraction of loss tokens penalised (verl kl_cov_ratio: 2e-4; at least one token). */
  ratio: z.number().positive().max(1).default(2e-4),
  /** Weight of |logp − logp_old| on the penalised tokens (verl ppo_kl_coef: 0.1). */
  coefficient: z.number().nonnegative().default(0.1),
});
export type KlCovOptions = z.output<typeof klCovOptionsSchema>;

export function klCovToken(token: TokenInput, selected: boolean, options: KlCovOptions): TokenTerm {
  const logRatio = token.logprob - token.oldLogprob;
  const r = Math.exp(logRatio);
  const a = token.advantage;
  if (!selected) return { value: -a * r, derivative: -a * r };
  return {
    value: -a * r + options.coefficient * Math.abs(logRatio),
    derivative: -a * r + options.coefficient * Math.sign(logRatio),
  };
}

export function klCovBatchTerm(
  sequences: readonly LossSequence[],
  options: KlCovOptions,
): BatchTerm<KlCovOptions> {
  const places = tokenCovariances(sequences);
  // Largest covariance first; Array.prototype.sort is stable, so ties keep batch order.
  const ranked = [...places].sort((x, y) => y.covariance - x.covariance);
  const selected = placeKeys(
    ranked.slice(0, places.length > 0 ? selectionCount(options.ratio, places.length) : 0),
  );
  return {
    tokenLoss: (token, resolved) =>
      klCovToken(token, selected.has(`${token.sequence}:${token.position}`), resolved),
    metrics: { 'losses/cov_selected_frac': places.length > 0 ? selected.size / places.length : 0 },
  };
}

export const klCov = defineLoss({
  id: 'kl-cov',
  description:
    'unclipped −A·r with a |log r| penalty on the few tokens of largest advantage × log-prob covariance, against entropy collapse',
  paper: {
    title: 'The Entropy Mechanism of Reinforcement Learning for Reasoning Language Models',
    arxiv: '2505.22617',
    code: 'PRIME-RL/Entropy-Mechanism-of-RL; volcengine/verl core_algos.py compute_policy_loss_kl_cov',
  },
  optionsSchema: klCovOptionsSchema,
  batchTerm: klCovBatchTerm,
  requireOldLogprobs: true,
});
