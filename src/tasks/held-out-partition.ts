// The held-out partition of a task's problem space: a problem is held out iff hash(task, prompt) <
// heldOutFraction (or its own metadata.partitionPoint says so), so equal prompts always fall on the same
// side — or, with partition 'canonical' (canonicalPartition), hash(task, canonical key), so a problem's
// variants do too; and one online training problem drawn outside it. Free of the task registry, so a task (the
// write-problems task) can use it without an import circle through src/tasks/index.ts.
import { createHash } from 'node:crypto';
import { UserError } from '../core/errors.ts';
import type { Problem } from '../core/problem.ts';
import type { Rng } from '../core/rng.ts';
import type { Task } from './task.ts';

/** Position of a prompt in [0, 1) under the held-out hash partition. */
export function partitionPoint(task: string, prompt: string): number {
  const hex = createHash('sha256').update(`held-out\u0000${task}\u0000${prompt}`).digest('hex').slice(0, 13);
  return Number.parseInt(hex, 16) / 2 ** 52;
}

/** A task may place a problem itself (metadata.partitionPoint in [0, 1); text-corpus: by file position). */
export function isHeldOut(problem: Problem, heldOutFraction: number): boolean {
  const own = problem.metadata?.partitionPoint;
  return (typeof own === 'number' ? own : partitionPoint(problem.task, problem.prompt)) < heldOutFraction;
}

/**
 * The task with its problems placed by their canonical key (Task.canonicalKey) instead of their prompt:
 * variants of one problem (addition's a+b and b+a, countdown's permuted numbers) fall on one side, so no
 * held-out problem has a training twin. The point is stored in metadata.partitionPoint (isHeldOut reads it).
 */
export function canonicalPartition(task: Task, where: string): Task {
  const { canonicalKey } = task;
  if (canonicalKey === undefined) {
    throw new UserError(
      `${where}: task ${task.name} has no canonical key; partition 'canonical' needs one (addition, countdown, string-compose have it)`,
    );
  }
  return {
    ...task,
    generate(rng, difficulty) {
      const problem = task.generate(rng, difficulty);
      const point = partitionPoint(task.name, canonicalKey(problem));
      return { ...problem, metadata: { ...problem.metadata, partitionPoint: point } };
    },
  };
}

/** One problem for online training that is never in the held-out part (resamples, at most 1000 tries). */
export function generateTrainingProblem(
  task: Task,
  rng: Rng,
  difficulty: number,
  heldOutFraction: number,
): Problem {
  for (let attempt = 0; attempt < 1000; attempt++) {
    const problem = task.generate(rng, difficulty);
    if (!isHeldOut(problem, heldOutFraction)) return problem;
  }
  throw new UserError(`${task.name} difficulty ${difficulty}: no training problem outside the held-out part`);
}
