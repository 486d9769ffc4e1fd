// uniform — the baseline: every problem equally likely. Problems are drawn in shuffled passes over the
// pool (an epoch-style data loader: no repeats until the pool is exhausted), or with replacement when
// `replacement: true`. No paper; this is the reference every curriculum must beat.
// [unverified]: nothing; no values to verify.
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
  parseOptions,
  requireNonEmptyPool,
} from './shared.ts';

export const uniformOptions = z.strictObject({ replacement: z.boolean().default(false) });

interface UniformState {
  selector: 'uniform';
  lists: ArmListsState;
  lastBatch: string[];
}

export function createUniform(pool: Problem[], options: unknown): TaskSelector {
  const config = parseOptions('uniform', uniformOptions, options);
  requireNonEmptyPool('uniform', pool);
  const lists = new ArmLists([pool.map((_, index) => index)]);
  const byId = new Map(pool.map((problem) => [problem.id, problem]));
  let lastBatch: Problem[] = [];
  return {
    name: 'uniform',
    select(count: number, rng: Rng): Problem[] {
      lastBatch = [];
      for (let slot = 0; slot < count; slot++) {
        lastBatch.push(pool[config.replacement ? rng.int(0, pool.length - 1) : lists.next(0, rng)]);
      }
      return lastBatch;
    },
    observe(_step: number, _outcomes: readonly GroupOutcome[]): void {},
    state(): UniformState {
      return { selector: 'uniform', lists: lists.state(), lastBatch: lastBatch.map((problem) => problem.id) };
    },
    load(state: unknown): void {
      const saved = expectState<UniformState>('uniform', state);
      lists.load(saved.lists);
      lastBatch = saved.lastBatch.map((id) => byId.get(id)!).filter(Boolean);
    },
    metrics: () => batchMetrics(lastBatch),
  };
}

export const uniformSelector = defineSelector({
  id: 'uniform',
  description: 'every problem equally likely: shuffled passes over the pool, or draws with replacement',
  optionsSchema: uniformOptions,
  create: createUniform,
});
