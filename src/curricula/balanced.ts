// balanced — online difficulty filtering: skip problems whose recent pass rate lies outside a band.
// Paper: Bae et al., "Online Difficulty Filtering for Reasoning Oriented Reinforcement Learning", arXiv
// 2504.03380 [paper]: keep prompts whose online pass rate is in [p_lo, p_hi]; the expected improvement is
// bounded below by p(1−p), maximal at p = 0.5. Related [code]: DAPO dynamic sampling keeps groups with
// std > 0 (band (0, 1)).
// Here the selector walks shuffled passes over the pool and skips a problem whose last observed pass
// rate fell outside [low, high] less than `recheckAfter` steps ago; unseen problems and problems in the
// band are taken. The paper filters after the rollouts (spending extra samples); the selector-level
// equivalent spends them only on the first visit and on rechecks.
// [unverified]: the band [0.25, 0.75] and the recheck interval (ours: 100 steps).
import { z } from 'zod';
import type { Problem } from '../core/problem.ts';
import type { Rng } from '../core/rng.ts';
import type { GroupOutcome, TaskSelector } from '../core/selector.ts';
import { defineSelector } from './define.ts';
import {
  ArmLists,
  type ArmListsState,
  batchMetrics,
  expectState,
  indexById,
  parseOptions,
  passRate,
  requireNonEmptyPool,
} from './shared.ts';

export const balancedOptions = z
  .strictObject({
    low: z.number().min(0).max(1).default(0.25),
    high: z.number().min(0).max(1).default(0.75),
    recheckAfter: z.number().int().positive().default(100),
  })
  .refine((options) => options.low <= options.high, { message: 'low must be <= high' });

/** Whether a problem last seen at `lastSeen` with pass rate `rate` may be selected at `step`. */
export function balancedEligible(
  rate: number | null,
  lastSeen: number,
  step: number,
  config: { low: number; high: number; recheckAfter: number },
): boolean {
  if (rate === null) return true;
  if (rate >= config.low && rate <= config.high) return true;
  return step - lastSeen >= config.recheckAfter;
}

interface BalancedState {
  selector: 'balanced';
  step: number;
  rates: (number | null)[];
  lastSeen: number[];
  lists: ArmListsState;
  lastBatch: string[];
}

export function createBalanced(pool: Problem[], options: unknown): TaskSelector {
  const config = parseOptions('balanced', balancedOptions, options);
  requireNonEmptyPool('balanced', pool);
  const ids = indexById(pool);
  const lists = new ArmLists([pool.map((_, index) => index)]);
  let rates: (number | null)[] = pool.map(() => null);
  let lastSeen: number[] = pool.map(() => 0);
  let step = 0;
  let lastBatch: Problem[] = [];
  let lastKeptShare = 1;

  return {
    name: 'balanced',
    perProblemEvidence: true,
    select(count: number, rng: Rng): Problem[] {
      const batch: Problem[] = [];
      let scanned = 0;
      let kept = 0;
      while (batch.length < count) {
        const index = lists.next(0, rng);
        scanned++;
        // After a whole pass without enough eligible problems, take what comes (the band is empty).
        if (scanned > pool.length || balancedEligible(rates[index], lastSeen[index], step, config)) {
          batch.push(pool[index]);
          kept++;
        }
      }
      lastKeptShare = kept / scanned;
      lastBatch = batch;
      return batch;
    },
    observe(observedStep: number, outcomes: readonly GroupOutcome[]): void {
      for (const outcome of outcomes) {
        const index = ids.get(outcome.problem.id);
        if (index === undefined) continue;
        rates[index] = passRate(outcome.rewards);
        lastSeen[index] = observedStep;
      }
      step = observedStep + 1;
    },
    state: (): BalancedState => ({
      selector: 'balanced',
      step,
      rates: [...rates],
      lastSeen: [...lastSeen],
      lists: lists.state(),
      lastBatch: lastBatch.map((problem) => problem.id),
    }),
    load(state: unknown): void {
      const saved = expectState<BalancedState>('balanced', state);
      step = saved.step;
      rates = [...saved.rates];
      lastSeen = [...saved.lastSeen];
      lists.load(saved.lists);
      lastBatch = saved.lastBatch.map((id) => pool[ids.get(id)!]);
    },
    metrics: () => ({ ...batchMetrics(lastBatch), 'curriculum/kept_share': lastKeptShare }),
  };
}

export const balancedSelector = defineSelector({
  id: 'balanced',
  description: 'online difficulty filtering: skip problems whose recent pass rate lies outside a band',
  paper: {
    title: 'Online Difficulty Filtering for Reasoning Oriented Reinforcement Learning',
    arxiv: '2504.03380',
  },
  optionsSchema: balancedOptions,
  create: createBalanced,
});
