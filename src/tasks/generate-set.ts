// Generated problem sets and held-out splits. A set is deterministic in (task, difficulty, seed) and has
// no duplicate ids or prompts. Held-out problems are chosen by a hash partition of the prompt: a problem
// is held out iff hash(task, prompt) < heldOutFraction. Equal prompts (hence equal ids) always fall on
// the same side, so a training set, or an online training stream using `generateTrainingProblem`, can
// never contain a held-out problem, whatever its seed or size.
import { createHash } from 'node:crypto';
import { UserError } from '../core/errors.ts';
import type { Problem } from '../core/problem.ts';
import { Rng } from '../core/rng.ts';
import { isHeldOut } from './held-out-partition.ts';
import { tasks } from './index.ts';
import type { Task } from './task.ts';

export { generateTrainingProblem, isHeldOut, partitionPoint } from './held-out-partition.ts';

export interface GenerateSetOptions {
  /** Task name (registry key) or the task itself. */
  task: string | Task;
  difficulties: readonly number[];
  /** Problems per difficulty. */
  count: number;
  seed: number;
  /** Problems to avoid, by id and by prompt. */
  exclude?: Iterable<Problem>;
  /** Keeps only problems this accepts (used for the held-out partition). */
  accept?: (problem: Problem) => boolean;
  /** Return fewer problems instead of failing when a difficulty has too few distinct ones. */
  allowFewer?: boolean;
}

/** A number seed derived from parts (so each difficulty gets its own, unrelated stream). */
export function derivedSeed(...parts: (string | number)[]): number {
  return Number.parseInt(createHash('sha256').update(parts.join('\u0000')).digest('hex').slice(0, 12), 16);
}

/** `count` distinct problems per difficulty, in difficulty order. */
export function generateSet(options: GenerateSetOptions): Problem[] {
  const task = typeof options.task === 'string' ? tasks.get(options.task) : options.task;
  const seenIds = new Set<string>();
  const seenPrompts = new Set<string>();
  for (const problem of options.exclude ?? []) {
    seenIds.add(problem.id);
    seenPrompts.add(problem.prompt);
  }
  const problems: Problem[] = [];
  for (const difficulty of options.difficulties) {
    const rng = new Rng(derivedSeed(options.seed, task.name, difficulty));
    const maxAttempts = 50 * options.count + 1000;
    let found = 0;
    for (let attempt = 0; attempt < maxAttempts && found < options.count; attempt++) {
      const problem = task.generate(rng, difficulty);
      if (seenIds.has(problem.id) || seenPrompts.has(problem.prompt)) continue;
      if (options.accept !== undefined && !options.accept(problem)) continue;
      seenIds.add(problem.id);
      seenPrompts.add(problem.prompt);
      problems.push(problem);
      found++;
    }
    if (found < options.count && !options.allowFewer) {
      throw new UserError(
        `${task.name} difficulty ${difficulty}: found only ${found} of ${options.count} distinct problems ` +
          `after ${maxAttempts} attempts; ask for fewer, or pass allowFewer`,
      );
    }
  }
  return problems;
}

export interface SplitOptions {
  task: string | Task;
  difficulties: readonly number[];
  /** Training problems per difficulty. */
  trainCount: number;
  /** Held-out problems per difficulty. */
  heldOutCount: number;
  seed: number;
  /** Share of the problem space reserved for held-out evaluation (default 0.2). */
  heldOutFraction?: number;
  allowFewer?: boolean;
}

/** A training set and a held-out set that share no id and no prompt (by the hash partition). */
export function splitProblemSets(options: SplitOptions): { train: Problem[]; heldOut: Problem[] } {
  const fraction = options.heldOutFraction ?? 0.2;
  if (!(fraction > 0 && fraction < 1))
    throw new RangeError(`heldOutFraction must be in (0, 1), got ${fraction}`);
  const common = { task: options.task, difficulties: options.difficulties, allowFewer: options.allowFewer };
  const heldOut = generateSet({
    ...common,
    count: options.heldOutCount,
    seed: derivedSeed(options.seed, 'held-out'),
    accept: (problem) => isHeldOut(problem, fraction),
  });
  const train = generateSet({
    ...common,
    count: options.trainCount,
    seed: derivedSeed(options.seed, 'train'),
    accept: (problem) => !isHeldOut(problem, fraction),
  });
  return { train, heldOut };
}
