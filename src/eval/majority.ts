// maj@k (self-consistency): the answer given most often among the FIRST k of n samples is the model's
// answer; maj@k is 1 when that answer is correct. Paper: "Self-Consistency Improves Chain of Thought
// Reasoning in Language Models" (Wang et al. 2022), arXiv 2203.11171; the maj1@k reporting follows
// Minerva (Lewkowycz et al. 2022, arXiv 2206.14858).
//
// Choices (no single authors' code to follow; the vote itself, with its tie and abstention rules, is
// src/rewards/answer-vote.ts, shared with the TTRL reward):
// - Reported for every power-of-two k ≤ n (majorityAtKCurve), like pass@k.
// - First k samples, not an average over random subsets of size k: deterministic and cheap, but with
//   more variance than the subset average (verl's maj@N uses a bootstrap over subsets instead).
// - Samples with no extracted answer (null) do not vote; if none of the k has an answer, maj@k = 0.
// - Answers are grouped by a key function (default: trimmed text); pass a normaliser (e.g. a canonical
//   number format) so that '0.50' and '1/2' vote together.
// - Ties between classes go to the class whose first member appears earliest among the k samples.
// - The vote is correct when the earliest sample of the winning class is correct (flags from the
//   verifier). If the key groups answers that the verifier grades differently, that first sample decides.
import { ConfigError } from '../core/errors.ts';
import { type MajorityOptions, majorityVote } from '../rewards/answer-vote.ts';
import { powersOfTwoUpTo } from './pass-at-k.ts';

export { type MajorityOptions, type MajorityVote, majorityVote } from '../rewards/answer-vote.ts';

/** maj@k over the first k samples: 1 if the majority answer is correct, else 0. */
export function majorityAtK(
  answers: readonly (string | null)[],
  correct: readonly boolean[],
  k: number,
  options: MajorityOptions = {},
): number {
  if (answers.length !== correct.length) {
    throw new RangeError(`maj@k: ${answers.length} answers but ${correct.length} correctness flags`);
  }
  if (!Number.isInteger(k) || k < 1) throw new ConfigError(`maj@k: k must be a positive integer, got ${k}`);
  if (k > answers.length) {
    throw new ConfigError(
      `maj@${k} needs at least ${k} samples per problem, got n = ${answers.length}: raise n or lower k`,
    );
  }
  const vote = majorityVote(answers.slice(0, k), options);
  return vote.index >= 0 && correct[vote.index] ? 1 : 0;
}

/** maj@k for every power-of-two k ≤ n: { 1: …, 2: …, 4: … }. */
export function majorityAtKCurve(
  answers: readonly (string | null)[],
  correct: readonly boolean[],
  options: MajorityOptions = {},
): Record<number, number> {
  const curve: Record<number, number> = {};
  for (const k of powersOfTwoUpTo(answers.length)) curve[k] = majorityAtK(answers, correct, k, options);
  return curve;
}
