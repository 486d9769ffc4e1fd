// e2h — easy-to-hard fixed schedules over training steps.
// Paper: Parashar et al., "Curriculum Reinforcement Learning from Easy to Hard Tasks Improves LLM
// Reasoning", arXiv 2506.06632. Authors' code: divelab/E2H-Reasoning src/trainer.py (TaskSampler).
// Levels i = 0..K−1 are the pool's distinct difficulty values, ascending; t = step, T = totalSteps.
//   classic:  one-hot on level ⌊tK/T⌋ (clamped to K−1)       balanced: uniform over levels
//   cosine:   a = ½(1+cos(πt/T)); p_i = a(K−i)/S + (1−a)(i+1)/S, S = K(K+1)/2; floor p_min = 2/(K(K+1)),
//             renormalise
//   gaussian: μ = (t/T)^μExponent·(K−1); q_i ∝ exp(−(i−μ)²/(2σ²)); p_i = p_min + (1 − K·p_min)·q_i
// Each batch slot draws a level ~ p and takes that level's next item (pre-shuffled, cyclic).
// Defaults (authors' config): schedule cosine, μExponent 0.5, σ 0.5, minProb true.
// [unverified]: the floor value used by the gaussian schedule (we use the cosine floor 2/(K(K+1))).
// Deviation: steps past totalSteps keep the schedule's final distribution.
import { z } from 'zod';
import type { Problem } from '../core/problem.ts';
import type { Rng } from '../core/rng.ts';
import type { GroupOutcome, TaskSelector } from '../core/selector.ts';
import { defineSelector } from './define.ts';
import { difficultyLevels } from './levels.ts';
import {
  ArmLists,
  type ArmListsState,
  armMetrics,
  expectState,
  parseOptions,
  requireNonEmptyPool,
  type SelectorContext,
  withRunDefaults,
} from './shared.ts';

export const e2hOptions = z.strictObject({
  schedule: z.enum(['classic', 'balanced', 'cosine', 'gaussian']).default('cosine'),
  totalSteps: z.number().int().positive(),
  muExponent: z.number().positive().default(0.5),
  sigma: z.number().positive().default(0.5),
  minProb: z.boolean().default(true),
});

export type E2hSchedule = z.infer<typeof e2hOptions>['schedule'];

/** The level distribution of an E2H schedule at `step` of `totalSteps`, over `levelCount` levels. */
export function e2hProbabilities(
  schedule: E2hSchedule,
  step: number,
  totalSteps: number,
  levelCount: number,
  { muExponent = 0.5, sigma = 0.5, minProb = true } = {},
): number[] {
  const K = levelCount;
  const t = Math.min(step, totalSteps);
  const T = totalSteps;
  const pMin = minProb ? 2 / (K * (K + 1)) : 0;
  const levels = Array.from({ length: K }, (_, i) => i);
  if (schedule === 'balanced') return levels.map(() => 1 / K);
  if (schedule === 'classic') {
    const active = Math.min(K - 1, Math.floor((t * K) / T));
    return levels.map((i) => (i === active ? 1 : 0));
  }
  if (schedule === 'cosine') {
    const a = 0.5 * (1 + Math.cos((Math.PI * t) / T));
    const S = (K * (K + 1)) / 2;
    const floored = levels.map((i) => Math.max(pMin, (a * (K - i)) / S + ((1 - a) * (i + 1)) / S));
    const total = floored.reduce((sum, p) => sum + p, 0);
    return floored.map((p) => p / total);
  }
  const mu = (t / T) ** muExponent * (K - 1);
  const q = levels.map((i) => Math.exp(-((i - mu) ** 2) / (2 * sigma * sigma)));
  const qTotal = q.reduce((sum, value) => sum + value, 0);
  return q.map((value) => pMin + (1 - K * pMin) * (value / qTotal));
}

interface LevelScheduleState {
  selector: string;
  step: number;
  lists: ArmListsState;
}

/**
 * A selector that draws a level from `probabilitiesAt(step)` for each slot and takes the level's next
 * problem. Shared by e2h and hard-first.
 */
export function createLevelScheduleSelector(
  name: string,
  pool: Problem[],
  probabilitiesAt: (step: number, levelCount: number) => number[],
): TaskSelector {
  requireNonEmptyPool(name, pool);
  const levels = difficultyLevels(name, pool);
  const lists = new ArmLists(levels.members);
  let step = 0;
  return {
    name,
    select(count: number, rng: Rng): Problem[] {
      const probabilities = probabilitiesAt(step, levels.names.length);
      const batch: Problem[] = [];
      for (let slot = 0; slot < count; slot++)
        batch.push(pool[lists.next(rng.categorical(probabilities), rng)]);
      return batch;
    },
    observe(observedStep: number, _outcomes: readonly GroupOutcome[]): void {
      step = observedStep + 1;
    },
    state: (): LevelScheduleState => ({ selector: name, step, lists: lists.state() }),
    load(state: unknown): void {
      const saved = expectState<LevelScheduleState>(name, state);
      step = saved.step;
      lists.load(saved.lists);
    },
    metrics(): Record<string, number> {
      const probabilities = probabilitiesAt(step, levels.names.length);
      return armMetrics(
        levels.names.map((level) => `difficulty_${level}`),
        probabilities,
      );
    },
  };
}

export function createE2h(pool: Problem[], options: unknown, context?: SelectorContext): TaskSelector {
  const config = parseOptions('e2h', e2hOptions, withRunDefaults(options, context));
  return createLevelScheduleSelector('e2h', pool, (step, levelCount) =>
    e2hProbabilities(config.schedule, step, config.totalSteps, levelCount, config),
  );
}

export const e2hSelector = defineSelector({
  id: 'e2h',
  description:
    'easy-to-hard fixed schedules (classic, balanced, cosine, gaussian) over difficulty levels and training steps',
  paper: {
    title: 'Curriculum Reinforcement Learning from Easy to Hard Tasks Improves LLM Reasoning',
    arxiv: '2506.06632',
    code: 'divelab/E2H-Reasoning src/trainer.py (TaskSampler)',
  },
  optionsSchema: e2hOptions,
  create: createE2h,
});
