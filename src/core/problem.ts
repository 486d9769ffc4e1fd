// The unit of work: one verifiable problem. Generators (src/tasks) and JSONL problem sets produce these.

/** A generator parameter's value. */
export type ParamValue = number | string | boolean;

/** One verifiable problem: prompt, reference answer, worked solution, task, category and difficulty. */
export interface Problem {
  /** Unique and stable: the same generator, seed and index always give the same id. */
  id: string;
  /** Name of the task (registry key) whose verifier grades this problem, e.g. 'addition'. */
  task: string;
  /** Text given to the policy. */
  prompt: string;
  /** The reference final answer. */
  answer: string;
  /** A worked, step-by-step solution whose last part states the answer; used for SFT, hints, reverse curricula. */
  solution: string;
  /** Grouping for curricula (defaults to the task name). */
  category: string;
  /** Integer difficulty level (task-specific meaning: digits, depth, count, steps). */
  difficulty: number;
  /** Generator parameters (numeric ones form the ALP-GMM task space). */
  params: Record<string, ParamValue>;
  /** Task-specific structured data that is not a generator parameter (e.g. code tests, answer choices). */
  metadata?: Record<string, unknown>;
  /**
   * Ranges [start, end) of `solution` (UTF-16 offsets) that an environment writes, not the policy (a tool's
   * output in a worked tool-use trace): supervised training masks them from the loss. Absent: none.
   */
  observationSpans?: [number, number][];
}

/** What a verifier says about one completion. */
export interface Verdict {
  correct: boolean;
  /** The answer extracted from the completion, or null when none could be found. */
  extracted: string | null;
  /** Why it is wrong (or could not be graded); absent when correct. */
  reason?: string;
}
