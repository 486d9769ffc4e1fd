// target-relevance — a test-time curriculum: practise the training problems most similar to a target set,
// restricted to those the policy can plausibly solve.
// Paper: Hübotter et al., "Learning on the Job" (test-time curricula for targeted RL)
// (TTC-RL; arXiv id not recorded in reference/curricula.md). Authors' code: jonhue/ttc
// TTRL/verl/verl/utils/dataset/dynamic_rl_dataset.py (DynamicRLDataset._estimate_achievability_questions,
// _filter_questions_band, subsample_dataset), TTRL/verl/verl/trainer/ppo/ray_trainer.py (fit: the
// per-problem scores `critic/score@<id>` go into cur_train_ach_metrics with dict.update, so a problem seen
// again before the next update keeps only its latest score), sift_worker.py, training/verl_training.sh.
// Relevance: max cosine similarity between a problem's prompt and any target text, using hashed
// character n-grams (text-embedding.ts) instead of the policy's mean-pooled hidden states.
// Achievability [code]: per-problem estimate a_i (init `prior`, or metadata[priorKey]). Every
// `updateDelay` (10) steps, problems trained on since the last update take their latest observed score (the
// mean reward of that step's rollouts, clipped to [0, 1]) and all others shift in logit space by
// δ = clip(mean(logit(obs) − logit(pred)), ±0.5) (logits of values clipped to [0.05, 0.95]).
// Keep a ∈ [0.25, 0.6]; if fewer than the floor qualify, add those closest to the band's midpoint.
// The floor (`minKept`): the authors fix min_questions_in_band = 1000 against subsets of 1000 problems
// (subset_size = train batch × update delay), i.e. "at least one subset's worth". `minKept: 'auto'` (the
// default) is min(1000, batch × updateDelay): the authors' 1000 on their scale, and on a pool under 1000
// problems a floor that leaves the band something to exclude (a fixed 1000 would keep the whole pool, and
// the band would filter nothing). A number sets the floor as given (at least one batch is always kept).
// Caution: a band on the estimated pass rate also admits problems that are right by chance (p ≈ 0.3–0.5
// for ever); on the simulator's `noisy` learner the tighter floor lets them fill the subset
// (docs/simulate.md, "target-relevance").
// The next `updateDelay` steps draw, in order, from the `count × updateDelay` most relevant kept problems.
// Deviations: the authors choose within the kept set by SIFT (VTL: relevant and mutually diverse); we rank
// by relevance alone (their `cosine` alternative); the automatic floor above. Scores are clipped to [0, 1].
// [unverified]: the prior (ours 0.5 when no priorKey).
import { z } from 'zod';
import type { Problem } from '../core/problem.ts';
import type { Rng } from '../core/rng.ts';
import type { GroupOutcome, TaskSelector } from '../core/selector.ts';
import { defineSelector } from './define.ts';
import {
  batchMetrics,
  expectState,
  indexById,
  meanReward,
  missingField,
  parseOptions,
  requireNonEmptyPool,
} from './shared.ts';
import { cosineToDense, embedText, hashedNgrams } from './text-embedding.ts';
import { topK } from './top-k.ts';

export const targetRelevanceOptions = z.strictObject({
  targets: z.array(z.string().min(1)).min(1),
  ngram: z.number().int().positive().default(3),
  dimensions: z.number().int().positive().default(4096),
  low: z.number().min(0).max(1).default(0.25),
  high: z.number().min(0).max(1).default(0.6),
  minKept: z.union([z.number().int().min(0), z.literal('auto')]).default('auto'),
  updateDelay: z.number().int().positive().default(10),
  prior: z.number().min(0).max(1).default(0.5),
  priorKey: z.string().nullable().default(null),
  maxShift: z.number().min(0).default(0.5),
  logitEpsilon: z.number().min(0).max(0.5).default(0.05),
});

const logit = (p: number, epsilon: number) => {
  const clipped = Math.min(1 - epsilon, Math.max(epsilon, p));
  return Math.log(clipped / (1 - clipped));
};

/** The TTC-RL achievability update; returns the applied logit shift δ. Mutates `estimates`. */
export function updateAchievability(
  estimates: Float64Array,
  observed: ReadonlyMap<number, number>,
  maxShift: number,
  epsilon: number,
): number {
  if (observed.size === 0) return 0;
  let total = 0;
  for (const [index, accuracy] of observed)
    total += logit(accuracy, epsilon) - logit(estimates[index], epsilon);
  const shift = Math.min(maxShift, Math.max(-maxShift, total / observed.size));
  for (let i = 0; i < estimates.length; i++) {
    const accuracy = observed.get(i);
    estimates[i] = accuracy ?? 1 / (1 + Math.exp(-(logit(estimates[i], epsilon) + shift)));
  }
  return shift;
}

interface TargetRelevanceState {
  selector: 'target-relevance';
  step: number;
  estimates: number[];
  pending: [string, number][];
  subset: number[];
  cursor: number;
  stale: boolean;
  keptCount: number;
  lastShift: number;
  lastBatch: string[];
}

export function createTargetRelevance(pool: Problem[], options: unknown): TaskSelector {
  const config = parseOptions('target-relevance', targetRelevanceOptions, options);
  requireNonEmptyPool('target-relevance', pool);
  const ids = indexById(pool);
  const targets = config.targets.map((text) => embedText(text, config.ngram, config.dimensions));
  const relevance = new Float64Array(pool.length);
  pool.forEach((problem, index) => {
    const counts = hashedNgrams(problem.prompt, config.ngram, config.dimensions);
    let best = 0;
    for (const target of targets) best = Math.max(best, cosineToDense(counts, target));
    relevance[index] = best;
  });
  let estimates = new Float64Array(pool.length);
  pool.forEach((problem, index) => {
    if (config.priorKey === null) estimates[index] = config.prior;
    else {
      const value = problem.metadata?.[config.priorKey];
      if (typeof value !== 'number') {
        throw missingField(
          'target-relevance',
          `metadata.${config.priorKey}`,
          problem,
          'Give a prior pass rate.',
        );
      }
      estimates[index] = value;
    }
  });
  let step = 0;
  // Latest observed score per problem since the last update: pool index → mean reward of its last step.
  let pending = new Map<number, number>();
  let subset: number[] = [];
  let cursor = 0;
  let stale = true;
  let keptCount = 0;
  let lastShift = 0;
  let lastBatch: Problem[] = [];

  function refresh(count: number): void {
    const middle = (config.low + config.high) / 2;
    const kept: number[] = [];
    for (let i = 0; i < pool.length; i++)
      if (estimates[i] >= config.low && estimates[i] <= config.high) kept.push(i);
    const floor = config.minKept === 'auto' ? Math.min(1000, count * config.updateDelay) : config.minKept;
    const wanted = Math.min(pool.length, Math.max(floor, count));
    if (kept.length < wanted) {
      const closeness = Float64Array.from(estimates, (a) =>
        a >= config.low && a <= config.high ? Number.NEGATIVE_INFINITY : -Math.abs(a - middle),
      );
      kept.push(...topK(closeness, wanted - kept.length));
    }
    keptCount = kept.length;
    const keptRelevance = kept.map((index) => relevance[index]);
    subset = topK(keptRelevance, count * config.updateDelay).map((position) => kept[position]);
    cursor = 0;
    stale = false;
  }

  return {
    name: 'target-relevance',
    select(count: number, _rng: Rng): Problem[] {
      if (stale || subset.length === 0) refresh(count);
      lastBatch = [];
      for (let slot = 0; slot < count; slot++) lastBatch.push(pool[subset[cursor++ % subset.length]]);
      return lastBatch;
    },
    observe(observedStep: number, outcomes: readonly GroupOutcome[]): void {
      // This step's score per problem: the mean over all of its rollouts in the step (as the authors'
      // per-uid score); it replaces any earlier score since the last update.
      const totals = new Map<number, [number, number]>();
      for (const outcome of outcomes) {
        const index = ids.get(outcome.problem.id);
        if (index === undefined || outcome.rewards.length === 0) continue;
        const [sum, rollouts] = totals.get(index) ?? [0, 0];
        const m = outcome.rewards.length;
        totals.set(index, [sum + meanReward(outcome.rewards) * m, rollouts + m]);
      }
      for (const [index, [sum, m]] of totals) pending.set(index, sum / m);
      step = observedStep + 1;
      if (step % config.updateDelay === 0) {
        lastShift = updateAchievability(estimates, pending, config.maxShift, config.logitEpsilon);
        pending = new Map();
        stale = true;
      }
    },
    state: (): TargetRelevanceState => ({
      selector: 'target-relevance',
      step,
      estimates: Array.from(estimates),
      pending: [...pending].map(([index, score]) => [pool[index].id, score]),
      subset: [...subset],
      cursor,
      stale,
      keptCount,
      lastShift,
      lastBatch: lastBatch.map((problem) => problem.id),
    }),
    load(state: unknown): void {
      const saved = expectState<TargetRelevanceState>('target-relevance', state);
      step = saved.step;
      estimates = Float64Array.from(saved.estimates);
      // Older versions saved [id, successes, rollouts]; their accumulated rate stands in for the latest.
      pending = new Map(
        (saved.pending as (readonly [string, number, number?])[]).map(([id, score, rollouts]) => [
          ids.get(id)!,
          rollouts === undefined ? score : score / rollouts,
        ]),
      );
      subset = [...saved.subset];
      cursor = saved.cursor;
      stale = saved.stale;
      keptCount = saved.keptCount;
      lastShift = saved.lastShift;
      lastBatch = saved.lastBatch.map((id) => pool[ids.get(id)!]);
    },
    metrics(): Record<string, number> {
      let meanRelevance = 0;
      for (const problem of lastBatch)
        meanRelevance += relevance[ids.get(problem.id)!] / Math.max(1, lastBatch.length);
      return {
        ...batchMetrics(lastBatch),
        'curriculum/relevance': meanRelevance,
        'curriculum/kept_count': keptCount,
        'curriculum/achievability_shift': lastShift,
      };
    },
  };
}

export const targetRelevanceSelector = defineSelector({
  id: 'target-relevance',
  description:
    'test-time curriculum: the training problems most similar to a target set that the policy can plausibly solve',
  paper: {
    title: 'Learning on the Job: test-time curricula for targeted RL (TTC-RL)',
    code: 'jonhue/ttc TTRL/verl/verl/utils/dataset/dynamic_rl_dataset.py',
  },
  optionsSchema: targetRelevanceOptions,
  create: createTargetRelevance,
});
