// The per-token covariance of the Entropy-Mechanism paper (Cui et al. 2025, arXiv 2505.22617, §4): for
// each loss token of the batch,
//   cov_t = (A_t − mean(A)) · (logp_t − mean(logp)),
// the means taken over every loss token of the batch (verl clip_cov / kl_cov: masked means; the log-prob
// is the current policy's, detached). Tokens with a large positive covariance (a confident token with a
// high advantage, or an unlikely one with a low advantage) are the ones whose update lowers the entropy
// most; Clip-Cov (./clip-cov.ts) stops the gradient of a few of them, KL-Cov (./kl-cov.ts) pulls a few back
// towards π_old. Shared here so both select over the same quantity.
import type { LossSequence } from './policy-loss.ts';

/** A loss token's place in the batch. */
export interface TokenPlace {
  sequence: number;
  position: number;
  covariance: number;
}

/** The advantage of token t of a sequence (a broadcast sequence advantage or its own). */
export function tokenAdvantage(sequence: LossSequence, t: number): number {
  return typeof sequence.advantages === 'number' ? sequence.advantages : sequence.advantages[t];
}

/** cov_t of every loss token, in batch order (sequence by sequence, token by token). */
export function tokenCovariances(sequences: readonly LossSequence[]): TokenPlace[] {
  let advantageSum = 0;
  let logprobSum = 0;
  let count = 0;
  sequences.forEach((sequence) => {
    sequence.logprobs.forEach((logprob, t) => {
      if (sequence.mask[t] === 0) return;
      advantageSum += tokenAdvantage(sequence, t);
      logprobSum += logprob;
      count++;
    });
  });
  const places: TokenPlace[] = [];
  if (count === 0) return places;
  const meanAdvantage = advantageSum / count;
  const meanLogprob = logprobSum / count;
  sequences.forEach((sequence, i) => {
    sequence.logprobs.forEach((logprob, t) => {
      if (sequence.mask[t] === 0) return;
      const covariance = (tokenAdvantage(sequence, t) - meanAdvantage) * (logprob - meanLogprob);
      places.push({ sequence: i, position: t, covariance });
    });
  });
  return places;
}

/** How many tokens a covariance method acts on: max(1, ⌊fraction · loss tokens⌋), as verl. */
export function selectionCount(fraction: number, tokens: number): number {
  return Math.max(1, Math.floor(fraction * tokens));
}

/** A set of (sequence, position) pairs, keyed for lookup from a token term. */
export function placeKeys(places: readonly TokenPlace[]): Set<string> {
  return new Set(places.map((place) => `${place.sequence}:${place.position}`));
}
