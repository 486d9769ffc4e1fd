// AMPO's decisions on one graded group, as pure functions over numbers (ampo.ts runs them): whether the
// group gets teacher help (the injection strategy), which teacher solutions are kept (top k by the
// student's comprehension), and which failed members they replace. Source: SII-Enigma/AMPO @b88d365
// `adaptive_mix_src/mix_dapo_trainer.py` `mix_off_policy_rollout` and `_sort_batch_by_scores`.
import type { Rng } from '../core/rng.ts';

export type Injection = 'adaptive' | 'hybrid' | 'always';

/**
 * Does a group with `correct` correct members get help? adaptive: none correct (authors: success rate
 * < 1/n); hybrid: also a solved group with probability `hybridProbability` (one draw, only for solved
 * groups, as the authors' np.random.random() < 0.3); always: every group.
 */
export function triggered(
  injection: Injection,
  correct: number,
  hybridProbability: number,
  rng: Rng,
): boolean {
  if (injection === 'always' || correct === 0) return true;
  if (injection === 'adaptive') return false;
  return rng.next() < hybridProbability;
}

export interface Candidate {
  /** Pool teacher name, or 'oracle' (the problem's worked solution). */
  source: string;
  text: string;
  /** The student's comprehension (scoreB); 0 when not scored. */
  score: number;
}

export type Selection = 'comprehension' | 'random' | 'pool-order';

/**
 * The candidates in the order they are used: by comprehension, descending (authors' prob manager; ties
 * keep pool order: a stable sort), in a seeded random order (authors' `random` manager: torch.randperm),
 * or in pool order (authors' `naive`: no sorting). The caller keeps the first k.
 */
export function rankCandidates<T extends Candidate>(
  candidates: readonly T[],
  selection: Selection,
  rng: Rng,
): T[] {
  if (selection === 'pool-order') return [...candidates];
  if (selection === 'random') return rng.shuffle([...candidates]);
  return candidates
    .map((candidate, index) => ({ candidate, index }))
    .sort((a, b) => b.candidate.score - a.candidate.score || a.index - b.index)
    .map((entry) => entry.candidate);
}

/**
 * The members replaced: `count` of the `incorrect` member indices, drawn uniformly without replacement
 * (authors: random.sample(incorrect_positions, k)), returned ascending.
 */
export function chooseMembers(incorrect: readonly number[], count: number, rng: Rng): number[] {
  const pool = [...incorrect];
  const chosen: number[] = [];
  for (let k = 0; k < Math.min(count, pool.length); k++) {
    const pick = k + Math.floor(rng.next() * (pool.length - k));
    [pool[k], pool[pick]] = [pool[pick], pool[k]];
    chosen.push(pool[k]);
  }
  return chosen.sort((a, b) => a - b);
}
