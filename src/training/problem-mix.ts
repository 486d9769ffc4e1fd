// A weighted mix of (task, difficulties) entries that generates fresh training problems on demand, and a
// disjoint held-out set for evaluation. The split is a fixed hash partition of problem ids (ids hash the
// prompt, so equal prompts have equal ids): a problem is held out iff isHeldOut(id). Training never draws a
// held-out problem and evaluation draws only held-out ones, whatever the seeds and set sizes.
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { ConfigError } from '../core/errors.ts';
import type { Problem } from '../core/problem.ts';
import { Rng } from '../core/rng.ts';
import { tasks } from '../tasks/index.ts';

export const mixEntrySchema = z.strictObject({
  task: z.string(),
  /** Difficulty levels drawn uniformly for this entry. */
  difficulties: z.array(z.number().int()).min(1),
  /** Relative weight of this entry in the mix. */
  weight: z.number().positive().default(1),
});

export type MixEntry = z.output<typeof mixEntrySchema>;

/** Checks task names and difficulty ranges; throws ConfigError naming the entry. */
export function validateMix(entries: readonly MixEntry[], where: string): void {
  if (entries.length === 0) throw new ConfigError(`${where}: the task mix is empty; list at least one task`);
  entries.forEach((entry, index) => {
    const task = tasks.get(entry.task);
    for (const difficulty of entry.difficulties) {
      if (difficulty < task.difficulty.min || difficulty > task.difficulty.max) {
        throw new ConfigError(
          `${where}.${index}: ${entry.task} difficulty ${difficulty} is outside [${task.difficulty.min}, ${task.difficulty.max}] (${task.difficulty.meaning})`,
        );
      }
    }
  });
}

/** Held-out problems: up to `perDifficulty` distinct problems for every (task, difficulty) of the mix. */
export function heldOutProblems(
  entries: readonly MixEntry[],
  perDifficulty: number,
  seed: number,
): Problem[] {
  const rng = new Rng(seed);
  const seen = new Set<string>();
  const problems: Problem[] = [];
  for (const entry of entries) {
    const task = tasks.get(entry.task);
    for (const difficulty of entry.difficulties) {
      let kept = 0;
      // Small problem spaces (1-digit addition) give repeats: stop after a bounded number of draws.
      for (let attempt = 0; attempt < perDifficulty * 4 && kept < perDifficulty; attempt++) {
        const problem = task.generate(rng, difficulty);
        if (seen.has(problem.id)) continue;
        seen.add(problem.id);
        problems.push(problem);
        kept++;
      }
    }
  }
  return problems;
}

export class ProblemMix {
  private readonly weights: number[];

  constructor(private readonly entries: readonly MixEntry[]) {
    this.weights = entries.map((entry) => entry.weight);
  }

  /** A fresh training problem (never a held-out one). */
  draw(rng: Rng): Problem {
    const entry = this.entries[rng.categorical(this.weights)];
    const task = tasks.get(entry.task);
    for (;;) {
      const problem = task.generate(rng, rng.pick(entry.difficulties));
      if (!isHeldOut(problem.id)) return problem;
    }
  }
}
