// Difficulty levels for the fixed schedules (E2H, hard-first): the distinct difficulty values of the
// pool, sorted ascending, become levels 0..K−1, whatever scale the difficulty uses.
import type { Problem } from '../core/problem.ts';
import { type ArmGrouping, groupIntoArms, requireDifficulty } from './shared.ts';

export function difficultyLevels(selector: string, pool: readonly Problem[]): ArmGrouping {
  requireDifficulty(selector, pool);
  return groupIntoArms(pool, (problem) => String(problem.difficulty));
}
