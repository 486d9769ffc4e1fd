// ReMix's KL-Convex policy constraint (Liang et al., arXiv 2507.06892, "Squeeze the Soaked Sponge"): the
// KL term is a convex combination of the KL to the base model and the KL to the precedent model,
//   β·[(1 − w)·KL(π_θ‖π_base) + w·KL(π_θ‖π_prec)],
// so the policy is held near where it was (flexible) as well as near the start (stable). π_prec here is
// each sequence's behaviour policy, the π_old of its importance ratio: the policy of this step for an
// on-policy sample, a past step's for a replayed one (components/remix) — a precedent policy that needs no
// stored weights. [unverified] (no training code published): the paper's precedent model is the policy of
// the previous iteration; w (algorithm.kl.precedent) has no default from the authors, 0 = plain KL.
// Both terms use the run's estimator and the loss's aggregation (klLossPenalty, kl.ts).
import { type KlLossPenaltyResult, type KlSequence, klLossPenalty } from './kl.ts';

export interface KlConvexSequence extends KlSequence {
  /** log π_prec of the sampled tokens (the sequence's π_old). */
  precedentLogprobs: number[];
}

/** β·[(1 − w)·KL(π‖ref) + w·KL(π‖prec)] as loss weights on logp; w 0 is exactly klLossPenalty. */
export function klConvexPenalty(
  sequences: readonly KlConvexSequence[],
  precedent: number,
  options: { estimator: string; coefficient: number; aggregation?: string; tokenSumNormaliser?: number },
): KlLossPenaltyResult {
  if (!(precedent >= 0 && precedent <= 1))
    throw new RangeError(`KL precedent weight ${precedent} is not in [0, 1]`);
  const base = klLossPenalty(sequences, { ...options, coefficient: options.coefficient * (1 - precedent) });
  if (precedent === 0) return base;
  const towards = klLossPenalty(
    sequences.map((sequence) => ({ ...sequence, refLogprobs: sequence.precedentLogprobs })),
    { ...options, coefficient: options.coefficient * precedent },
  );
  const loss = base.loss + towards.loss;
  return {
    weights: base.weights.map((row, i) => row.map((weight, t) => weight + towards.weights[i][t])),
    loss,
    metrics: {
      'losses/kl': base.metrics['losses/kl'],
      'losses/kl_precedent': towards.metrics['losses/kl'],
      'losses/kl_penalty': loss,
    },
  };
}
