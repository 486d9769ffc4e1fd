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
// to batch reintroduces a (batch-level) length dependence. The 1/B factor follows current verl
// (`seq_denominator`) and the Dr. GRPO code (masked sum / MAX_TOKENS, then mean over sequences); older verl
// versions summed over sequences without 1/B.
// A sequence whose mask is all zero still counts in B (as in verl) and contributes nothing.

export const aggregationModes = [
  'token-mean',
  'seq-mean-token-mean',
  'seq-mean-token-sum',
  'seq-mean-token-sum-norm',
] as const;
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
