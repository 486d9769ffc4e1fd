// Worked solutions as guidance material: the config-time check that the pool has them, and the first
// fraction of one (the hint of QuestA, the oracle prefix of POPE).
import { ConfigError } from '../core/errors.ts';
import type { Problem } from '../core/problem.ts';
import type { GuidanceContext } from './guidance.ts';

/**
 * Refuses a pool with problems lacking a worked solution (empty `solution`): the scaffold could not help
 * them, and would silently act as `identity` there. One line naming the source and a few problem ids.
 */
export function requireWorkedSolutions(name: string, context: GuidanceContext | undefined): GuidanceContext {
  if (!context) {
    throw new ConfigError(`guidance '${name}' needs the run's problem pool (it shows worked solutions)`);
  }
  const missing = context.pool.filter((problem) => problem.solution.trim() === '');
  if (missing.length > 0) {
    const examples = missing
      .slice(0, 3)
      .map((problem) => problem.id)
      .join(', ');
    throw new ConfigError(
      `guidance '${name}' needs worked solutions, but ${missing.length} of ${context.pool.length} problems from ${context.source} have an empty solution (e.g. ${examples}); give them solutions or use guidance 'identity'`,
    );
  }
  return context;
}

/**
 * The first `fraction` of the solution, in characters (QuestA's `split_prefix(solution, p)`; whether the
 * authors split by characters, tokens or sentences is unverified — their utils.py is not in the release
 * we read).
 */
export function solutionPrefix(problem: Problem, fraction: number): string {
  return problem.solution.slice(0, Math.floor(fraction * problem.solution.length));
}
