// learning-progress — sample where the pass rate is changing (Syllabus-style learning progress).
// Source [code]: RyanNavillus/Syllabus syllabus/curricula/learning_progress.py (after Kanitscheider et
// al., "Multi-task curriculum learning in a complex, visual, hard-exploration domain: Minecraft").
// Per arm, with the observed pass rate p of a step:
//   p_fast ← α·p + (1−α)·p_fast ;  p_slow ← α·p_fast + (1−α)·p_slow      (α = 0.1; both start at the first p)
//   f(p) = p(1−θ)/(p + θ(1−2p)) (θ = 0.1 reweighting);  LP = |f(p_fast) − f(p_slow)|
// Distribution: over the arms with LP > 0 or a last pass rate > 0, z-score LP → sigmoid → normalise;
// other arms get probability 0 (uniform when no arm qualifies). Each slot draws an arm, then the arm's next
// problem (shuffled, without replacement).
// Deviations: Syllabus evaluates every task periodically; here arms are observed only when selected, so
// an arm not yet observed counts as qualifying with LP equal to the largest observed LP (optimism), which
// makes every arm get tried. Arms default to category×difficulty ('both').
// [unverified]: nothing beyond these choices; the update and distribution follow the Syllabus code.
import { z } from 'zod';
import type { Problem } from '../core/problem.ts';
import type { Rng } from '../core/rng.ts';
import type { GroupOutcome, TaskSelector } from '../core/selector.ts';
import {
  ArmLists,
  type ArmListsState,
  armKey,
  armMetrics,
  expectState,
  groupIntoArms,
  parseOptions,
  passRate,
  requireDifficulty,
  requireNonEmptyPool,
} from './shared.ts';

export const learningProgressOptions = z.strictObject({
  arms: z.enum(['difficulty', 'task', 'category', 'both']).default('both'),
  emaRate: z.number().min(0).max(1).default(0.1),
  reweight: z.number().min(0).max(0.5).default(0.1),
});

/** Syllabus's reweighting f(p) = p(1−θ)/(p + θ(1−2p)), which stretches differences near 0 and 1. */
export function reweight(p: number, theta: number): number {
  const denominator = p + theta * (1 - 2 * p);
  return denominator === 0 ? 0 : (p * (1 - theta)) / denominator;
}

/** Arm distribution from learning progress (null = arm never observed) and last pass rates. */
export function learningProgressDistribution(
  progress: readonly (number | null)[],
  lastPassRates: readonly (number | null)[],
): number[] {
  const observed = progress.filter((value): value is number => value !== null);
  const optimistic = observed.length > 0 ? Math.max(...observed) : 0;
  const values = progress.map((value) => value ?? optimistic);
  const qualifying = progress
    .map((_value, arm) => arm)
    .filter((arm) => progress[arm] === null || values[arm] > 0 || (lastPassRates[arm] ?? 0) > 0);
  if (qualifying.length === 0) return progress.map(() => 1 / progress.length);
  const subset = qualifying.map((arm) => values[arm]);
  const average = subset.reduce((sum, value) => sum + value, 0) / subset.length;
  const std = Math.sqrt(subset.reduce((sum, value) => sum + (value - average) ** 2, 0) / subset.length);
  const squashed = subset.map((value) => 1 / (1 + Math.exp(-(value - average) / (std > 0 ? std : 1))));
  const total = squashed.reduce((sum, value) => sum + value, 0);
  const distribution = progress.map(() => 0);
  qualifying.forEach((arm, position) => {
    distribution[arm] = squashed[position] / total;
  });
  return distribution;
}

interface LearningProgressState {
  selector: 'learning-progress';
  fast: (number | null)[];
  slow: (number | null)[];
  last: (number | null)[];
  lists: ArmListsState;
}

export function createLearningProgress(pool: Problem[], options: unknown): TaskSelector {
  const config = parseOptions('learning-progress', learningProgressOptions, options);
  requireNonEmptyPool('learning-progress', pool);
  if (config.arms === 'difficulty' || config.arms === 'both') requireDifficulty('learning-progress', pool);
  const arms = groupIntoArms(pool, (problem) => armKey(problem, config.arms));
  const lists = new ArmLists(arms.members);
  let fast: (number | null)[] = arms.names.map(() => null);
  let slow: (number | null)[] = arms.names.map(() => null);
  let last: (number | null)[] = arms.names.map(() => null);

  function distribution(): number[] {
    const progress = fast.map((value, arm) =>
      value === null
        ? null
        : Math.abs(reweight(value, config.reweight) - reweight(slow[arm]!, config.reweight)),
    );
    return learningProgressDistribution(progress, last);
  }

  return {
    name: 'learning-progress',
    select(count: number, rng: Rng): Problem[] {
      const weights = distribution();
      const batch: Problem[] = [];
      for (let slot = 0; slot < count; slot++) batch.push(pool[lists.next(rng.categorical(weights), rng)]);
      return batch;
    },
    observe(_step: number, outcomes: readonly GroupOutcome[]): void {
      const sums = arms.names.map(() => 0);
      const counts = arms.names.map(() => 0);
      for (const outcome of outcomes) {
        const arm = arms.indexOfName.get(armKey(outcome.problem, config.arms));
        if (arm === undefined || outcome.rewards.length === 0) continue;
        sums[arm] += passRate(outcome.rewards);
        counts[arm]++;
      }
      const alpha = config.emaRate;
      counts.forEach((count, arm) => {
        if (count === 0) return;
        const p = sums[arm] / count;
        const previousFast = fast[arm];
        if (previousFast === null) {
          fast[arm] = p;
          slow[arm] = p;
        } else {
          fast[arm] = alpha * p + (1 - alpha) * previousFast;
          slow[arm] = alpha * fast[arm]! + (1 - alpha) * slow[arm]!;
        }
        last[arm] = p;
      });
    },
    state: (): LearningProgressState => ({
      selector: 'learning-progress',
      fast: [...fast],
      slow: [...slow],
      last: [...last],
      lists: lists.state(),
    }),
    load(state: unknown): void {
      const saved = expectState<LearningProgressState>('learning-progress', state);
      fast = [...saved.fast];
      slow = [...saved.slow];
      last = [...saved.last];
      lists.load(saved.lists);
    },
    metrics: () => armMetrics(arms.names, distribution()),
  };
}
