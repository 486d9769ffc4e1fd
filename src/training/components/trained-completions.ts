// The completions a step trains (included by the estimate, non-empty), each as context + completion, and
// a position-scoring model's scores of them: what the critic (GAE values) and OREAL's token-level reward
// model (token weights) both read before the update.
import type { AdvantageEstimate } from '../../algorithms/advantages/estimator.ts';
import type { SampledGroup } from '../rl/rollout.ts';

export interface ScoredCompletions {
  /** Group and member of each trained completion, in order. */
  places: { g: number; i: number }[];
  /** Context + completion tokens of each. */
  sequences: number[][];
  /** The model's score at every position of each sequence (L − 1 for L tokens). */
  scores: number[][];
}

export function scoreTrainedCompletions(
  groups: readonly SampledGroup[],
  estimate: AdvantageEstimate,
  score: (sequences: readonly (readonly number[])[]) => number[][],
): ScoredCompletions {
  const places: { g: number; i: number }[] = [];
  groups.forEach((group, g) => {
    group.rollouts.forEach((rollout, i) => {
      if (estimate.included[g][i] && rollout.tokens.length > 0) places.push({ g, i });
    });
  });
  const sequences = places.map(({ g, i }) => [...groups[g].context, ...groups[g].rollouts[i].tokens]);
  return { places, sequences, scores: score(sequences) };
}
