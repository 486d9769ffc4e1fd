// learning-progress — sample where the pass rate is changing (Syllabus-style learning progress).
// Source [code]: RyanNavillus/Syllabus syllabus/curricula/learning_progress.py (LearningProgress:
// eval_and_update, _learning_progress, _reweight, _sample_distribution), after Kanitscheider et al.,
// "Multi-task curriculum learning in a complex, visual, hard-exploration domain: Minecraft"
// (arXiv 2106.14876).
// Per arm, with the observed pass rate p of a step (mean reward, clipped to [0, 1]):
//   baseline b = min(first p, 0.75)  (Syllabus: the success rates of the first evaluation, "random baseline")
//   p̃ = max(p − b, 0)/(1 − b)        (normalize_success = True, the default)
//   p_fast ← α·p̃ + (1−α)·p_fast ;  p_slow ← α·p_fast + (1−α)·p_slow ;  p_true ← α·p + (1−α)·p_true
//   (α = 0.1; all start at the first value: p_fast = p_slow = p̃ = 0, p_true = p)
//   f(p) = p(1−θ)/(p + θ(1−2p)) (θ = 0.1 reweighting);  LP = |f(p_fast) − f(p_slow)|
// Distribution: over the arms with LP > 0 or p_true > 0, z-score LP → sigmoid → normalise; other arms get
// probability 0 (uniform when no arm qualifies). Each slot draws an arm, then the arm's next problem
// (shuffled, without replacement). The normalisation measures progress above where an arm started, so an
// arm that stays at its first pass rate (a coin flip, a locked skill) shows no progress from staying there.
// Deviations: Syllabus evaluates every task periodically (the baseline is the first evaluation of all
// tasks); here arms are observed only when selected, so each arm's baseline is its own first observed pass
// rate, and an arm not yet observed counts as qualifying with LP equal to the largest observed LP
// (optimism), which makes every arm get tried. Arms default to category×difficulty ('both'). A rate is
// observed only from training groups (not a separate evaluation). `normalizeSuccess: false` uses raw rates.
// [unverified]: nothing beyond these choices; the update and distribution follow the Syllabus code.
import { z } from 'zod';
import { CheckpointError } from '../core/errors.ts';
import type { Problem } from '../core/problem.ts';
import type { Rng } from '../core/rng.ts';
import type { GroupOutcome, TaskSelector } from '../core/selector.ts';
import { defineSelector } from './define.ts';
import {
  ArmLists,
  type ArmListsState,
  armDifficultyHint,
  armKey,
  armKinds,
  armMetrics,
  expectState,
  groupIntoArms,
  meanReward,
  parseOptions,
  requireArmCount,
  requireDifficulty,
  requireNonEmptyPool,
  usesDifficulty,
} from './shared.ts';

export const learningProgressOptions = z.strictObject({
  arms: z.enum(armKinds).default('both'),
  emaRate: z.number().min(0).max(1).default(0.1),
  reweight: z.number().min(0).max(0.5).default(0.1),
  normalizeSuccess: z.boolean().default(true),
});

/** Syllabus's success normalisation: max(p − b, 0)/(1 − b) against a baseline b ≤ 0.75. */
export function normalizeSuccess(p: number, baseline: number): number {
  return Math.max(p - baseline, 0) / (1 - baseline);
}

/** Syllabus's reweighting f(p) = p(1−θ)/(p + θ(1−2p)), which stretches differences near 0 and 1. */
export function reweight(p: number, theta: number): number {
  const denominator = p + theta * (1 - 2 * p);
  return denominator === 0 ? 0 : (p * (1 - theta)) / denominator;
}

/** Arm distribution from learning progress (null = arm never observed) and the EMAs of raw pass rates. */
export function learningProgressDistribution(
  progress: readonly (number | null)[],
  truePassRates: readonly (number | null)[],
): number[] {
  const observed = progress.filter((value): value is number => value !== null);
  const optimistic = observed.length > 0 ? Math.max(...observed) : 0;
  const values = progress.map((value) => value ?? optimistic);
  const qualifying = progress
    .map((_value, arm) => arm)
    .filter((arm) => progress[arm] === null || values[arm] > 0 || (truePassRates[arm] ?? 0) > 0);
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
  /** EMA of the raw pass rate (Syllabus's _p_true): an arm qualifies while it is above 0. */
  trueRate: (number | null)[] | undefined;
  /** min(first observed pass rate, 0.75) per arm. */
  baseline: (number | null)[];
  lists: ArmListsState;
}

export function createLearningProgress(pool: Problem[], options: unknown): TaskSelector {
  const config = parseOptions('learning-progress', learningProgressOptions, options);
  requireNonEmptyPool('learning-progress', pool);
  if (usesDifficulty(config.arms)) requireDifficulty('learning-progress', pool, armDifficultyHint);
  const arms = groupIntoArms(pool, (problem) => armKey(problem, config.arms));
  const lists = new ArmLists(arms.members);
  let fast: (number | null)[] = arms.names.map(() => null);
  let slow: (number | null)[] = arms.names.map(() => null);
  let trueRate: (number | null)[] = arms.names.map(() => null);
  let baseline: (number | null)[] = arms.names.map(() => null);

  function distribution(): number[] {
    const progress = fast.map((value, arm) =>
      value === null
        ? null
        : Math.abs(reweight(value, config.reweight) - reweight(slow[arm]!, config.reweight)),
    );
    return learningProgressDistribution(progress, trueRate);
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
        sums[arm] += meanReward(outcome.rewards);
        counts[arm]++;
      }
      const alpha = config.emaRate;
      counts.forEach((count, arm) => {
        if (count === 0) return;
        const p = sums[arm] / count;
        if (baseline[arm] === null) baseline[arm] = Math.min(p, 0.75);
        const rate = config.normalizeSuccess ? normalizeSuccess(p, baseline[arm]!) : p;
        const previousFast = fast[arm];
        if (previousFast === null) {
          fast[arm] = rate;
          slow[arm] = rate;
          trueRate[arm] = p;
        } else {
          fast[arm] = alpha * rate + (1 - alpha) * previousFast;
          slow[arm] = alpha * fast[arm]! + (1 - alpha) * slow[arm]!;
          trueRate[arm] = alpha * p + (1 - alpha) * trueRate[arm]!;
        }
      });
    },
    state: (): LearningProgressState => ({
      selector: 'learning-progress',
      fast: [...fast],
      slow: [...slow],
      trueRate: [...trueRate],
      baseline: [...baseline],
      lists: lists.state(),
    }),
    load(state: unknown): void {
      const saved = expectState<LearningProgressState>('learning-progress', state);
      fast = [...saved.fast];
      slow = [...saved.slow];
      requireArmCount('learning-progress', saved.fast, arms.names);
      if (saved.trueRate === undefined) {
        // Saved before success normalisation: its EMAs are of raw rates.
        if (config.normalizeSuccess) {
          throw new CheckpointError(
            "selector 'learning-progress': the saved state predates success normalisation; resume it with selector.options.normalizeSuccess: false",
          );
        }
        const legacy = (saved as unknown as { last: (number | null)[] }).last;
        trueRate = [...legacy];
        baseline = legacy.map((p) => (p === null ? null : Math.min(p, 0.75)));
      } else {
        trueRate = [...saved.trueRate];
        baseline = [...saved.baseline];
      }
      lists.load(saved.lists);
    },
    metrics: () => armMetrics(arms.names, distribution()),
  };
}

export const learningProgressSelector = defineSelector({
  id: 'learning-progress',
  description: 'sample where the pass rate is changing (Syllabus-style learning progress over arms)',
  paper: {
    title: 'Multi-task curriculum learning in a complex, visual, hard-exploration domain: Minecraft',
    arxiv: '2106.14876',
    code: 'RyanNavillus/Syllabus syllabus/curricula/learning_progress.py',
  },
  optionsSchema: learningProgressOptions,
  create: createLearningProgress,
});
