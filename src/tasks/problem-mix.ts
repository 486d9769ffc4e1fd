// A weighted mix of (task, difficulties) entries that generates fresh training problems on demand, and the
// matching held-out set for evaluation. The split is the tasks' fixed hash partition (src/tasks/
// generate-set.ts): training never draws a held-out problem and evaluation draws only held-out ones,
// whatever the seeds and set sizes.
import { z } from 'zod';
import { ConfigError } from '../core/errors.ts';
import type { Problem } from '../core/problem.ts';
import type { Rng } from '../core/rng.ts';
import { generateSet, generateTrainingProblem, isHeldOut } from './generate-set.ts';
import { canonicalPartition } from './held-out-partition.ts';
import { tasks } from './index.ts';
import type { Task } from './task.ts';

/** Share of every task's problem space reserved for held-out evaluation. */
export const heldOutFraction = 0.2;

export const mixEntrySchema = z.strictObject({
  task: z.string(),
  /** Difficulty levels drawn uniformly for this entry. */
  difficulties: z.array(z.number().int()).min(1),
  /** Relative weight of this entry in the mix. */
  weight: z.number().positive().default(1),
  /** Options of a task family (Task.configure), e.g. text-corpus's `path`. */
  options: z.record(z.string(), z.unknown()).optional(),
  /** What the held-out partition hashes: the prompt (absent: as always) or the task's canonical key, so
   * variants of a problem (a+b and b+a) fall on one side (held-out-partition.ts canonicalPartition). */
  partition: z.enum(['prompt', 'canonical']).optional(),
});

export type MixEntry = z.output<typeof mixEntrySchema>;

const configured = new Map<string, Task>();

/** The entry's task: the registered one, or the family configured by the entry's options (cached). */
export function entryTask(entry: Pick<MixEntry, 'task' | 'options' | 'partition'>, where = 'tasks'): Task {
  const task = tasks.get(entry.task);
  const canonical = entry.partition === 'canonical';
  if (entry.options === undefined && !canonical) return task;
  if (entry.options !== undefined && task.configure === undefined) {
    throw new ConfigError(`${where}: task ${entry.task} takes no options`);
  }
  const key = `${entry.task}\u0000${JSON.stringify(entry.options ?? null)}\u0000${entry.partition ?? 'prompt'}`;
  let found = configured.get(key);
  if (found === undefined) {
    const family =
      entry.options === undefined ? task : task.configure!(entry.options, `${where} ${entry.task} options`);
    found = canonical ? canonicalPartition(family, where) : family;
    configured.set(key, found);
  }
  return found;
}

/** Checks task names, options and difficulty ranges; throws ConfigError naming the entry. */
export function validateMix(entries: readonly MixEntry[], where: string): void {
  if (entries.length === 0) throw new ConfigError(`${where}: the task mix is empty; list at least one task`);
  entries.forEach((entry, index) => {
    const task = entryTask(entry, `${where}.${index}`);
    if (entry.difficulties.length === 0) {
      throw new ConfigError(`${where}.${index}: ${entry.task} lists no difficulties; give at least one`);
    }
    for (const difficulty of entry.difficulties) {
      if (difficulty < task.difficulty.min || difficulty > task.difficulty.max) {
        throw new ConfigError(
          `${where}.${index}: ${entry.task} difficulty ${difficulty} is outside [${task.difficulty.min}, ${task.difficulty.max}] (${task.difficulty.meaning})`,
        );
      }
    }
  });
}

/** Held-out problems: up to `perDifficulty` distinct ones for every (task, difficulty) of the mix. */
export function heldOutProblems(
  entries: readonly MixEntry[],
  perDifficulty: number,
  seed: number,
): Problem[] {
  return entries.flatMap((entry) =>
    generateSet({
      task: entryTask(entry),
      difficulties: entry.difficulties,
      count: perDifficulty,
      seed,
      accept: (problem) => isHeldOut(problem, heldOutFraction),
      // Small spaces (1-digit addition has 100 problems, 20 held out) give fewer.
      allowFewer: true,
    }),
  );
}

export class ProblemMix {
  private readonly weights: number[];

  constructor(private readonly entries: readonly MixEntry[]) {
    this.weights = entries.map((entry) => entry.weight);
  }

  /** A fresh training problem (never a held-out one). */
  draw(rng: Rng): Problem {
    const entry = this.entries[rng.categorical(this.weights)];
    return generateTrainingProblem(entryTask(entry), rng, rng.pick(entry.difficulties), heldOutFraction);
  }

  /** `count` distinct training problems (fewer if the mix's space is smaller), e.g. a selector's pool. */
  pool(count: number, rng: Rng): Problem[] {
    const seen = new Set<string>();
    const problems: Problem[] = [];
    for (let attempt = 0; attempt < count * 20 && problems.length < count; attempt++) {
      const problem = this.draw(rng);
      if (seen.has(problem.id)) continue;
      seen.add(problem.id);
      problems.push(problem);
    }
    return problems;
  }
}
