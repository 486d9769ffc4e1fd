// The Task contract: a synthetic, verifiable reasoning task with a difficulty knob. Every task generates
// Problems whose worked `solution` ends with the uniform answer line, and grades completions by
// extracting that line. Implementations live in this folder, one file each, registered in index.ts.
//
// Solution convention (all tasks): one step per line, and the last line states the final answer as
// `A:<answer>`; prompts end with a newline. The extractor takes the LAST line that starts with `A:`
// (at the start of the completion or right after a newline), so text generated after it is ignored.
import { createHash } from 'node:crypto';
import type { ParamValue, Problem, Verdict } from '../core/problem.ts';
import type { Rng } from '../core/rng.ts';

/** The integer difficulty levels of a task and what a level means. */
export interface DifficultyRange {
  min: number;
  max: number;
  /** What one difficulty level means, e.g. 'digits of the longer operand'. */
  meaning: string;
}

/** One numeric knob of `generateFromParams`, for continuous task spaces (ALP-GMM). */
export interface ParameterRange {
  name: string;
  min: number;
  max: number;
  /** Values are rounded to integers by the generator. */
  integer: boolean;
}

/** The task contract: generate verifiable problems at a difficulty, and grade completions (never throwing). */
export interface Task {
  readonly name: string;
  readonly description: string;
  readonly difficulty: DifficultyRange;
  /** Every character that the task's prompts and solutions can contain (sorted, no duplicates). */
  readonly alphabet: string;
  /** A problem at integer `difficulty` in [difficulty.min, difficulty.max]. */
  generate(rng: Rng, difficulty: number): Problem;
  /** Grades a completion; never throws: wrong or garbled output gives correct:false with a reason. */
  verify(problem: Problem, completion: string): Verdict;
  /** The text of the last `A:` line of a completion, trimmed; null when there is none. */
  extractAnswer(completion: string): string | null;
  /**
   * Upper bound on the tokens of [BOS] + prompt + solution + [EOS] (one token per character) for problems
   * from `generate` at this difficulty. Exact (attained) for addition, string-compose and modular-chain.
   */
  maxSequenceTokens?(difficulty: number): number;
  /** Numeric knobs accepted by `generateFromParams` (absent when the task has none beyond difficulty). */
  readonly parameters?: readonly ParameterRange[];
  /** A problem from numeric knobs (out-of-range values are clamped, non-integers rounded). */
  generateFromParams?(rng: Rng, params: Record<string, number>): Problem;
  /**
   * A task family configured by options (config `tasks[].options`, e.g. text-corpus's file): the task with
   * the same name over those options; throws ConfigError on bad options. Absent: the task takes none.
   */
  configure?(options: Record<string, unknown>, where: string): Task;
  /**
   * Self-play (src/selfplay): a problem statement written by a generator policy, parsed back into a
   * Problem whose answer and worked solution come from the task's own solver; never throws. Absent: the
   * task takes no generated problems.
   */
  parseProblem?(text: string): ParsedProblem;
  /**
   * A key equal for a problem and its trivial variants (addition: operands swapped or zero-padded;
   * countdown: numbers permuted), so a contamination guard can reject variants of held-out problems.
   */
  canonicalKey?(problem: Problem): string;
  /**
   * Answers that are words of a fixed set (a verdict such as FAIL, "unanswerable"): the leakage guard
   * (src/guidance/leakage) matches them as whole words, so "failure" does not give away FAIL. Absent: an
   * answer is matched anywhere, inside longer words too (string-compose's "mullo" in "mmullo" leaks).
   */
  readonly labelAnswers?: boolean;
}

/** Why a generated statement is not a problem of the task. */
export type ParseRejection = 'unparsable' | 'out-of-grammar';

/** What `parseProblem` gives: a problem, or the reason class and a one-line detail. */
export type ParsedProblem =
  | { ok: true; problem: Problem }
  | { ok: false; reason: ParseRejection; detail: string };

/** The marker that starts the answer line. */
export const answerPrefix = 'A:';

/** Where the last `A:` line of `text` starts (-1 = none). */
export function answerLineStart(text: string): number {
  const start = text.lastIndexOf(`\n${answerPrefix}`);
  if (start >= 0) return start + 1;
  return text.startsWith(answerPrefix) ? 0 : -1;
}

/** The last `A:` line of a completion, trimmed; null when none (or when it is empty). */
export function extractAnswerLine(completion: string): string | null {
  if (typeof completion !== 'string') return null;
  const start = answerLineStart(completion);
  if (start < 0) return null;
  const lineEnd = completion.indexOf('\n', start);
  const answer = completion.slice(start + answerPrefix.length, lineEnd < 0 ? undefined : lineEnd).trim();
  return answer.length > 0 ? answer : null;
}

/**
 * The step lines of a worked solution: the lines before its last answer line (for hints and reverse
 * curricula), so that neither the answer line nor what follows it (a stated confidence line,
 * stated-confidence.ts) counts as a step; every line when there is no answer line.
 */
export function solutionSteps(solution: string): string[] {
  const lines = solution.split('\n');
  let answerAt = lines.length - 1;
  while (answerAt >= 0 && !lines[answerAt].startsWith(answerPrefix)) answerAt--;
  return answerAt < 0 ? lines : lines.slice(0, answerAt);
}

/** Stable problem id: task, difficulty and a 48-bit hash of the prompt (equal prompts → equal ids). */
export function problemId(task: string, difficulty: number, prompt: string): string {
  const hash = createHash('sha256').update(prompt).digest('hex').slice(0, 12);
  return `${task}-${difficulty}-${hash}`;
}

/** Builds a Problem with its stable id and the task name as category. */
export function makeProblem(fields: {
  task: string;
  difficulty: number;
  prompt: string;
  answer: string;
  solution: string;
  params: Record<string, ParamValue>;
  metadata?: Record<string, unknown>;
}): Problem {
  const problem: Problem = {
    id: problemId(fields.task, fields.difficulty, fields.prompt),
    task: fields.task,
    prompt: fields.prompt,
    answer: fields.answer,
    solution: fields.solution,
    category: fields.task,
    difficulty: fields.difficulty,
    params: fields.params,
  };
  if (fields.metadata !== undefined) problem.metadata = fields.metadata;
  return problem;
}

/** Verdict for tasks whose answer must match the reference string exactly. */
export function verifyExactAnswer(problem: Problem, completion: string): Verdict {
  const extracted = extractAnswerLine(completion);
  if (extracted === null) return { correct: false, extracted: null, reason: 'no answer line (A:...) found' };
  if (extracted === problem.answer) return { correct: true, extracted };
  // The reason does not reveal the reference answer: reasons may be shown to the policy (reflect-then-retry).
  return { correct: false, extracted, reason: `answer '${extracted}' is wrong` };
}

/** Checks an integer difficulty inside the task's range; a RangeError names the task and the range. */
export function checkDifficulty(task: string, range: DifficultyRange, difficulty: number): number {
  if (!Number.isInteger(difficulty) || difficulty < range.min || difficulty > range.max) {
    throw new RangeError(
      `${task}: difficulty must be an integer in [${range.min}, ${range.max}], got ${difficulty}`,
    );
  }
  return difficulty;
}

/** Rounds and clamps a numeric knob; a missing or non-finite value takes `fallback`. */
export function knob(value: number | undefined, min: number, max: number, fallback: number): number {
  if (value === undefined || !Number.isFinite(value)) return fallback;
  return Math.min(max, Math.max(min, Math.round(value)));
}

/** Sorted, de-duplicated characters of the given strings. */
export function sortedAlphabet(...parts: string[]): string {
  return [...new Set(parts.join(''))].sort().join('');
}
