// Loss aggregation: how per-token losses ℓ_{i,t} become one scalar. Every mode is linear in ℓ,
//   L = Σ_{i,t} c_{i,t} · ℓ_{i,t},
// with coefficients c that depend only on the mask, so the per-token weight for the backend is
// w_{i,t} = c_{i,t} · ∂ℓ_{i,t}/∂logp_{i,t}.
// Modes follow verl `agg_loss` (core_algos.py; B = number of sequences in the batch, m = mask):
//   token-mean               c = m / Σ_{i,t} m                  every token of the batch weighs the same
//                                                               (verl default; DAPO "token-level loss")
//   seq-mean-token-mean      c = m / (B · Σ_t m_i)              each sequence weighs the same (GRPO paper)
//   seq-mean-token-sum       c = m / B                          sum over tokens, mean over sequences
//   seq-mean-token-sum-norm  c = m / (B · N)                    Dr. GRPO: a constant N (the generation
//                                                               budget) instead of each sequence's length
// N is `tokenSumNormaliser`; when it is not set we use the longest sequence of the batch, as verl uses the
// padded response length (loss_mask.shape[-1]). Set it to max_tokens: a normaliser that changes from batch
// to batch reintroduces a (batch-level) length dependence. A KL loss term added to the policy loss uses the
// same mode and the same N (src/training/rl/update.ts), as verl and TRL do.
// The 1/B in seq-mean-token-sum-norm follows TRL GRPOTrainer loss_type 'dr_grpo' (Σ masked loss /
// (B · max_completion_length)) and the Dr. GRPO paper's listing (masked sum / MAX_TOKENS, then mean over
// sequences). verl differs: its seq-mean-token-sum-norm is Σ_i Σ_t m·ℓ / N without 1/B (a change that
// added 1/B was reverted in 2026-01), so verl's loss and gradient are B times ours (KL term included);
// under Adam a constant factor matters only through gradient clipping and Adam's ε.
// A sequence whose mask is all zero still counts in B and contributes nothing. verl's new engine does the
// same (it divides by the global batch size); verl's default actor (dp_actor: agg_loss without a global
// batch size) counts only sequences with at least one loss token in the seq-mean modes. This never
// matters in training here: update.ts sends no empty completion, and every completion token carries loss.

/** The loss aggregations: token-mean, seq-mean-token-mean, seq-mean-token-sum, seq-mean-token-sum-norm. */
export const aggregationModes = [
  'token-mean',
  'seq-mean-token-mean',
  'seq-mean-token-sum',
  'seq-mean-token-sum-norm',
] as const;
/** How per-token losses are combined into one scalar (see aggregationModes). */
export type AggregationMode = (typeof aggregationModes)[number];

/** c_{i,t} for each token: the derivative of the aggregated loss with respect to ℓ_{i,t}. */
export function aggregationCoefficients(
  masks: readonly (readonly number[])[],
  mode: AggregationMode,
  tokenSumNormaliser?: number,
): number[][] {
  const sequences = masks.length;
  const sum = (values: readonly number[]) => values.reduce((total, value) => total + value, 0);
  switch (mode) {
    case 'token-mean': {
      const total = masks.reduce((count, mask) => count + sum(mask), 0);
      return masks.map((mask) => mask.map((m) => (total > 0 ? m / total : 0)));
    }
    case 'seq-mean-token-mean':
      return masks.map((mask) => {
        const count = sum(mask);
        return mask.map((m) => (count > 0 ? m / (sequences * count) : 0));
      });
    case 'seq-mean-token-sum':
      return masks.map((mask) => mask.map((m) => m / sequences));
    case 'seq-mean-token-sum-norm': {
      const normaliser = tokenSumNormaliser ?? Math.max(1, ...masks.map((mask) => mask.length));
      return masks.map((mask) => mask.map((m) => m / (sequences * normaliser)));
    }
  }
}
