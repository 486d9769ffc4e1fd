// adarft — adaptive target difficulty.
// Paper: Shi et al., "Efficient Reinforcement Finetuning via Adaptive Curriculum Learning", arXiv 2504.05520.
// Authors' code: uscnlp-lime/verl verl/trainer/ppo/custom_sampler.py (CurriculumSampler), ray_trainer.py.
// State: a scalar target difficulty T (init 0). Each batch = the B problems with the smallest |d_i − T|
// (earlier use does not exclude a problem). After each step, with R̄ = mean reward over all responses:
//   T ← clip(T + η·tanh(α·(R̄ − β)), d_min, d_max)
// Defaults (authors' config): β = 0.5, α = 2, η = 50, d_min = 0, d_max = 100, T₀ = 0.
// Deviations: (1) the authors' difficulty is a 0–100 score (100·(1 − reference success rate)); this
// project's `difficulty` is an integer level, so by default (`difficultyScale: 'pool'`) the pool's
// [min, max] is mapped linearly onto [0, 100] so that η keeps its meaning; 'raw' uses the values as they
// are. (2) Ties in |d − T| (many problems share a level) are broken at random with the select() Rng
// instead of by argsort order, so a level is not reduced to the same B problems every step.
// [unverified]: the exact difficulty estimator of the paper.
import { z } from 'zod';
import type { Problem } from '../core/problem.ts';
import type { Rng } from '../core/rng.ts';
import type { GroupOutcome, TaskSelector } from '../core/selector.ts';
import { defineSelector } from './define.ts';
import { batchMetrics, expectState, parseOptions, requireDifficulty, requireNonEmptyPool } from './shared.ts';

export const adarftOptions = z.strictObject({
  targetReward: z.number().min(0).max(1).default(0.5),
  sensitivity: z.number().positive().default(2),
  stepSize: z.number().positive().default(50),
  minDifficulty: z.number().default(0),
  maxDifficulty: z.number().default(100),
  initialTarget: z.number().default(0),
  difficultyScale: z.enum(['pool', 'raw']).default('pool'),
});

/** One AdaRFT update: T + η·tanh(α·(R̄ − β)), clipped to [d_min, d_max]. */
export function adarftUpdate(
  target: number,
  meanReward: number,
  config: Pick<
    z.infer<typeof adarftOptions>,
    'targetReward' | 'sensitivity' | 'stepSize' | 'minDifficulty' | 'maxDifficulty'
  >,
): number {
  const moved = target + config.stepSize * Math.tanh(config.sensitivity * (meanReward - config.targetReward));
  return Math.min(config.maxDifficulty, Math.max(config.minDifficulty, moved));
}

interface AdarftState {
  selector: 'adarft';
  target: number;
  lastMeanReward: number;
  lastBatch: string[];
}

export function createAdarft(pool: Problem[], options: unknown): TaskSelector {
  const config = parseOptions('adarft', adarftOptions, options);
  requireNonEmptyPool('adarft', pool);
  requireDifficulty('adarft', pool);
  let low = Number.POSITIVE_INFINITY;
  let high = Number.NEGATIVE_INFINITY;
  for (const problem of pool) {
    low = Math.min(low, problem.difficulty);
    high = Math.max(high, problem.difficulty);
  }
  const scaled = pool.map((problem) =>
    config.difficultyScale === 'raw'
      ? problem.difficulty
      : high > low
        ? (100 * (problem.difficulty - low)) / (high - low)
        : 0,
  );
  // Pool indices sorted by scaled difficulty: the nearest B to T are found by expanding outward.
  const order = pool.map((_, index) => index).sort((a, b) => scaled[a] - scaled[b] || a - b);
  const sortedDifficulty = order.map((index) => scaled[index]);
  const byId = new Map(pool.map((problem) => [problem.id, problem]));
  let target = config.initialTarget;
  let lastMeanReward = 0;
  let lastBatch: Problem[] = [];

  function nearest(count: number, rng: Rng): number[] {
    // Binary search for the first position with difficulty >= target.
    let left = 0;
    let right = sortedDifficulty.length;
    while (left < right) {
      const middle = (left + right) >> 1;
      if (sortedDifficulty[middle] < target) left = middle + 1;
      else right = middle;
    }
    let below = left - 1; // next candidate going down
    let above = left; // next candidate going up
    const chosen: number[] = [];
    while (chosen.length < count && (below >= 0 || above < order.length)) {
      const distanceBelow = below >= 0 ? target - sortedDifficulty[below] : Number.POSITIVE_INFINITY;
      const distanceAbove =
        above < order.length ? sortedDifficulty[above] - target : Number.POSITIVE_INFINITY;
      const distance = Math.min(distanceBelow, distanceAbove);
      // The shell: every problem at exactly this distance, on either side — two contiguous runs of `order`.
      const belowEnd = below;
      while (below >= 0 && target - sortedDifficulty[below] === distance) below--;
      const aboveStart = above;
      while (above < order.length && sortedDifficulty[above] - target === distance) above++;
      const belowCount = belowEnd - below; // positions below+1 .. belowEnd
      const shellSize = belowCount + (above - aboveStart);
      const shellAt = (position: number) =>
        order[position < belowCount ? belowEnd - position : aboveStart + position - belowCount];
      const needed = count - chosen.length;
      if (shellSize <= needed) {
        for (let position = 0; position < shellSize; position++) chosen.push(shellAt(position));
      } else {
        // Floyd's algorithm: `needed` distinct positions of the shell, O(needed) draws.
        const picked = new Set<number>();
        for (let j = shellSize - needed; j < shellSize; j++) {
          const candidate = rng.int(0, j);
          picked.add(picked.has(candidate) ? j : candidate);
        }
        for (const position of picked) chosen.push(shellAt(position));
      }
    }
    return chosen;
  }

  return {
    name: 'adarft',
    select(count: number, rng: Rng): Problem[] {
      // When count exceeds the pool the batch repeats the ranking, as a sampler over a small dataset would.
      const ranked = nearest(Math.min(count, pool.length), rng);
      lastBatch = Array.from({ length: count }, (_, slot) => pool[ranked[slot % ranked.length]]);
      return lastBatch;
    },
    observe(_step: number, outcomes: readonly GroupOutcome[]): void {
      let total = 0;
      let responses = 0;
      for (const outcome of outcomes) {
        for (const reward of outcome.rewards) total += reward;
        responses += outcome.rewards.length;
      }
      if (responses === 0) return;
      lastMeanReward = total / responses;
      target = adarftUpdate(target, lastMeanReward, config);
    },
    state: (): AdarftState => ({
      selector: 'adarft',
      target,
      lastMeanReward,
      lastBatch: lastBatch.map((problem) => problem.id),
    }),
    load(state: unknown): void {
      const saved = expectState<AdarftState>('adarft', state);
      target = saved.target;
      lastMeanReward = saved.lastMeanReward;
      lastBatch = saved.lastBatch.map((id) => byId.get(id)!).filter(Boolean);
    },
    metrics: () => ({
      ...batchMetrics(lastBatch),
      'curriculum/target_difficulty': target,
      'curriculum/mean_reward': lastMeanReward,
    }),
  };
}

export const adarftSelector = defineSelector({
  id: 'adarft',
  description: 'adaptive target difficulty: problems nearest a target that moves with the batch reward',
  paper: {
    title: 'Efficient Reinforcement Finetuning via Adaptive Curriculum Learning',
    arxiv: '2504.05520',
    code: 'uscnlp-lime/verl verl/trainer/ppo/custom_sampler.py (CurriculumSampler)',
  },
  optionsSchema: adarftOptions,
  create: createAdarft,
});
