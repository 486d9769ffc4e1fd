// Worked solutions as guidance material: the config-time check that the pool has them, and the first
// fraction of one (the hint of QuestA, the oracle prefix of POPE).
import { ConfigError } from '../core/errors.ts';
import type { Problem } from '../core/problem.ts';
import { answerLineStart } from '../tasks/task.ts';
import type { GuidanceContext } from './guidance.ts';

/**
 * Refuses a pool with problems lacking a worked solution (empty `solution`): the scaffold could not help
 * them, and would silently act as `identity` there. One line naming the source and a few problem ids.
 */
export function requireWorkedSolutions(name: string, context: GuidanceContext | undefined): GuidanceContext {
  if (!context) {
    throw new ConfigError(`guidance '${name}' needs the run's problem pool (it shows worked solutions)`);
  }
  const missing = missingSolutions(context.pool, context.source);
  if (missing) {
    throw new ConfigError(
      `guidance '${name}' needs worked solutions, but ${missing}; give them solutions or use guidance 'identity'`,
    );
  }
  return context;
}

/**
 * `N of M problems from SOURCE have an empty solution (e.g. id1, id2, id3)` when some pool problems lack a
 * worked solution, else null: the shared part of every refusal of a pool without them.
 */
export function missingSolutions(pool: readonly Problem[], source: string): string | null {
  const missing = pool.filter((problem) => problem.solution.trim() === '');
  if (missing.length === 0) return null;
  const examples = missing
    .slice(0, 3)
    .map((problem) => problem.id)
    .join(', ');
  return `${missing.length} of ${pool.length} problems from ${source} have an empty solution (e.g. ${examples})`;
}

/**
 * The first `fraction` of the solution, in characters (QuestA's `split_prefix(solution, p)`; whether the
 * authors split by characters, tokens or sentences is unverified — their utils.py is not in the release
 * we read), never into its answer line (solutionUpTo).
 */
export function solutionPrefix(problem: Problem, fraction: number): string {
  return solutionUpTo(problem, Math.floor(fraction * problem.solution.length));
}

/**
 * The solution's first `length` characters, cut back to the start of its answer line (the last line
 * starting "A:") when they reach into it: a prefix ending "…\nA:1" starts the answer without stating it
 * whole, which a literal guard lets through (issue 33: hints at p ≥ 0.95 on addition, ≥ 0.75 on countdown).
 */
export function solutionUpTo(problem: Problem, length: number): string {
  const line = answerLineStart(problem.solution);
  return problem.solution.slice(0, line < 0 ? length : Math.min(length, line));
}
