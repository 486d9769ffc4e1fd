// AMPO's comprehension score (arXiv 2510.02227; code SII-Enigma/AMPO @b88d365,
// `workers/reward_manager/prob.py` `compute_scoreB` with compute_score_name=mean_exp_log_softmax, and
// `mix_dapo_trainer.py` `replace_answer_with_gt_batch`): how likely the CURRENT student finds the gold
// answer after a teacher's reasoning. The teacher's answer is replaced by the gold one, the sequence is
// scored teacher-forced, and
//   scoreB = mean over the gold answer's tokens t of exp(log π_θ(gt_t | x, teacher reasoning, gt_<t)).
// Our tasks state the answer on the last `A:` line (src/tasks/task.ts), so "the teacher's reasoning" is
// its text up to and including the last `A:` marker (everything after the answer line is dropped, as the
// authors drop everything after </answer>), and the gold answer's tokens follow it.
// As the authors: a solution without an answer line (their `valid_flag` false) scores 0, and so does one
// too long for the context (their max_length check).
// Deviations: the reasoning and the gold answer are tokenized separately and concatenated (identical for
// char tokenizers; a BPE may merge across the boundary, the authors tokenize the joined text and locate
// the answer by character offsets). Scores are kept in float64: the authors round scoreB to bf16 (8 bits
// of mantissa), which makes near ties exact ties that their unstable sort breaks arbitrarily; ampo.ts
// breaks real ties by pool order instead.
import type { Tokenizer } from '../core/policy.ts';
import { answerPrefix } from '../tasks/task.ts';

export interface ComprehensionSequence {
  /** context + reasoning (through the `A:` marker) + gold answer tokens. */
  tokens: number[];
  /** Index in `tokens` of the first gold answer token. */
  goldStart: number;
  goldLength: number;
}

/** The teacher's text up to and including its last answer marker; null when it has no answer line. */
export function reasoningOf(text: string): string | null {
  const marked = text.lastIndexOf(`\n${answerPrefix}`);
  if (marked >= 0) return text.slice(0, marked + 1 + answerPrefix.length);
  if (text.startsWith(answerPrefix)) return answerPrefix;
  return null;
}

/**
 * The sequence to score for one teacher solution: `context` ([BOS] + prompt, the student's), the
 * teacher's reasoning, the gold answer. null when the solution has no answer line, the gold answer is
 * empty, or the sequence does not fit `contextLength`.
 */
export function comprehensionSequence(
  tokenizer: Tokenizer,
  context: readonly number[],
  text: string,
  gold: string,
  contextLength: number,
): ComprehensionSequence | null {
  const reasoning = reasoningOf(text);
  if (reasoning === null || gold.length === 0) return null;
  const head = tokenizer.encode(reasoning, 'teacher solution');
  const answer = tokenizer.encode(gold, 'gold answer');
  const tokens = [...context, ...head, ...answer];
  if (answer.length === 0 || tokens.length > contextLength) return null;
  return { tokens, goldStart: context.length + head.length, goldLength: answer.length };
}

/**
 * scoreB from a teacher-forced forward over `sequence.tokens` (log-probs of length L − 1: entry i is the
 * log-prob of token i + 1): the mean probability of the gold answer's tokens.
 */
export function meanGoldProbability(sequence: ComprehensionSequence, logprobs: readonly number[]): number {
  let sum = 0;
  for (let j = 0; j < sequence.goldLength; j++) sum += Math.exp(logprobs[sequence.goldStart + j - 1]);
  return sum / sequence.goldLength;
}
