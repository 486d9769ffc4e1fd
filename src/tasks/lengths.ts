// Sequence lengths: how many tokens [BOS] + prompt + solution + [EOS] take under the char-level tokenizer
// (one token per character). `maxSequenceLength` uses the task's own upper bound when it declares one
// (exact for addition, string-compose, modular-chain) and otherwise the maximum over seeded samples.
// `sampledMaxSequenceLength` is the empirical maximum (a lower bound on the true one).
import { Rng } from '../core/rng.ts';
import type { Task } from './task.ts';

export interface LengthOptions {
  samples?: number;
  seed?: number;
}

/** Tokens of one training sequence: BOS + prompt + solution + EOS. */
export function sequenceTokens(prompt: string, solution: string): number {
  return 2 + [...prompt].length + [...solution].length;
}

/** Longest sequence of `task` at `difficulty`: the task's declared bound, else the sampled maximum. */
export function maxSequenceLength(task: Task, difficulty: number, options: LengthOptions = {}): number {
  return task.maxSequenceTokens?.(difficulty) ?? sampledMaxSequenceLength(task, difficulty, options);
}

/** Largest sequence seen over `samples` problems of `task` at `difficulty` (seeded, deterministic). */
export function sampledMaxSequenceLength(
  task: Task,
  difficulty: number,
  options: LengthOptions = {},
): number {
  const rng = new Rng(options.seed ?? 0);
  let longest = 0;
  for (let i = 0; i < (options.samples ?? 2000); i++) {
    const problem = task.generate(rng, difficulty);
    longest = Math.max(longest, sequenceTokens(problem.prompt, problem.solution));
  }
  return longest;
}

export interface LengthRow {
  difficulty: number;
  /** maxSequenceLength: the declared bound, else the sampled maximum. */
  bound: number;
  /** The sampled maximum. */
  sampled: number;
}

/** Both figures at every difficulty of a task, in difficulty order. */
export function sequenceLengthTable(task: Task, options: LengthOptions = {}): LengthRow[] {
  const table: LengthRow[] = [];
  for (let level = task.difficulty.min; level <= task.difficulty.max; level++) {
    const sampled = sampledMaxSequenceLength(task, level, options);
    table.push({ difficulty: level, bound: task.maxSequenceTokens?.(level) ?? sampled, sampled });
  }
  return table;
}
