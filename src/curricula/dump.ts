// dump — distribution-level UCB over data sources.
// Paper: Wang et al., "DUMP: Automated Distribution-Level Curriculum Learning for RL-based LLM
// Post-training", arXiv 2504.09710. Authors' code: ZhentingWang/DUMP verl/utils/curriculum_learning.py
// (LearnabilityEstimator, CurriculumController.compute_sampling_weights, CurriculumSampler) and
// verl/trainer/ppo/ray_trainer.py (the update call).
// Arms j: data distributions — the authors' `data_source`, which in the paper's experiments are difficulty
// strata of one task (Knights-and-Knaves puzzles with 3, 4, …, 14 people: 12 sources). The default arm is
// therefore task × difficulty ('task-difficulty'); 'category', 'task', 'difficulty' and 'both' are options.
// (With arms = task, a one-task pool is a single arm and DUMP is uniform sampling.)
// State per arm: a sliding window W_j of the last 300 per-trajectory advantages and n_j = samples seen.
//   Â_j = mean_{a∈W_j} |a|;  UCB_j = Â_j + c·sqrt(2·ln(N+1)/(n_j+1)), N = Σ n_j;  w = softmax(UCB/τ)
// Each slot draws j ~ w, then a problem of j uniformly with replacement.
// Defaults (authors' code): window 300, c = 1, τ = 0.1. An empty window gives Â_j = 0.
// Deviations: the Beta success counter the authors only log is omitted; the update from validation
// ("advantage = reward") is not done — observe() sees training groups only.
// [unverified]: none of the values (read in the authors' code); Â_j = 0 for an empty window is our choice.
// On the simulator, per-level arms lift DUMP from far below uniform to above it on `irt`, but a coin-flip
// arm still draws most of the batch (docs/simulate.md, "Chasing noise").
import { z } from 'zod';
import type { Problem } from '../core/problem.ts';
import type { Rng } from '../core/rng.ts';
import type { GroupOutcome, TaskSelector } from '../core/selector.ts';
import { defineSelector } from './define.ts';
import {
  armDifficultyHint,
  armKey,
  armKinds,
  armMetrics,
  expectState,
  groupIntoArms,
  parseOptions,
  requireArmCount,
  requireDifficulty,
  requireNonEmptyPool,
  softmax,
  usesDifficulty,
} from './shared.ts';

export const dumpOptions = z.strictObject({
  arms: z.enum(armKinds).default('task-difficulty'),
  windowSize: z.number().int().positive().default(300),
  exploration: z.number().min(0).default(1),
  temperature: z.number().positive().default(0.1),
});

/** UCB_j = mean|a| over the window + c·sqrt(2·ln(N+1)/(n_j+1)). */
export function dumpScore(
  window: readonly number[],
  armCount: number,
  totalCount: number,
  exploration: number,
): number {
  let expectedAbsoluteAdvantage = 0;
  for (const advantage of window) expectedAbsoluteAdvantage += Math.abs(advantage);
  if (window.length > 0) expectedAbsoluteAdvantage /= window.length;
  return expectedAbsoluteAdvantage + exploration * Math.sqrt((2 * Math.log(totalCount + 1)) / (armCount + 1));
}

interface DumpState {
  selector: 'dump';
  windows: number[][];
  counts: number[];
}

export function createDump(pool: Problem[], options: unknown): TaskSelector {
  const config = parseOptions('dump', dumpOptions, options);
  requireNonEmptyPool('dump', pool);
  if (usesDifficulty(config.arms)) requireDifficulty('dump', pool, armDifficultyHint);
  const arms = groupIntoArms(pool, (problem) => armKey(problem, config.arms));
  let windows: number[][] = arms.names.map(() => []);
  let counts = arms.names.map(() => 0);

  function scores(): number[] {
    const total = counts.reduce((sum, count) => sum + count, 0);
    return windows.map((window, arm) => dumpScore(window, counts[arm], total, config.exploration));
  }

  return {
    name: 'dump',
    select(count: number, rng: Rng): Problem[] {
      const weights = softmax(scores(), config.temperature);
      const batch: Problem[] = [];
      for (let slot = 0; slot < count; slot++) {
        const members = arms.members[rng.categorical(weights)];
        batch.push(pool[members[rng.int(0, members.length - 1)]]);
      }
      return batch;
    },
    observe(_step: number, outcomes: readonly GroupOutcome[]): void {
      for (const outcome of outcomes) {
        const arm = arms.indexOfName.get(armKey(outcome.problem, config.arms));
        if (arm === undefined) continue;
        const window = windows[arm];
        for (const advantage of outcome.advantages) window.push(advantage);
        if (window.length > config.windowSize) window.splice(0, window.length - config.windowSize);
        counts[arm] += outcome.advantages.length;
      }
    },
    state: (): DumpState => ({
      selector: 'dump',
      windows: windows.map((window) => [...window]),
      counts: [...counts],
    }),
    load(state: unknown): void {
      const saved = expectState<DumpState>('dump', state);
      requireArmCount('dump', saved.windows, arms.names);
      windows = saved.windows.map((window) => [...window]);
      counts = [...saved.counts];
    },
    metrics(): Record<string, number> {
      const ucb = scores();
      const metrics = armMetrics(arms.names, softmax(ucb, config.temperature));
      arms.names.forEach((name, arm) => {
        metrics[`curriculum/${name}/ucb`] = ucb[arm];
      });
      return metrics;
    },
  };
}

export const dumpSelector = defineSelector({
  id: 'dump',
  description: 'distribution-level UCB over data sources, on a sliding window of |advantage|',
  paper: {
    title: 'DUMP: Automated Distribution-Level Curriculum Learning for RL-based LLM Post-training',
    arxiv: '2504.09710',
    code: 'ZhentingWang/DUMP verl/utils/curriculum_learning.py',
  },
  optionsSchema: dumpOptions,
  create: createDump,
});
