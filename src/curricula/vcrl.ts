// vcrl — variance-based curriculum: train on problems whose group rewards vary most.
// Paper: Jiang et al., "VCRL: Variance-based Curriculum Reinforcement Learning for Large Language
// Models", arXiv 2509.19803.
// Score [paper]: with k successes out of G, the unbiased group variance σ² = k(G−k)/(G(G−1)) divided by its
// maximum σ²_max (G/(4(G−1)) for even G, (G+1)/(4G) for odd G): p = σ²/σ²_max ∈ [0, 1], 1 at k ≈ G/2 and 0
// when the group is all right or all wrong.
// Selection: a share `replayFraction` of each batch is replayed from a priority memory bank of problems
// whose last score was p ≥ κ (drawn without replacement with probability ∝ p); the rest comes from a
// shuffled pass over the pool (fresh problems, as in the paper's rollout-then-filter loop). A problem
// re-observed with p < κ leaves the bank; a full bank evicts its lowest score.
// [unverified] (no code found): κ = 0.3, bank size 1000, replay share 0.5, and the eviction rule. The
// paper's main mechanism, dropping low-p groups from each training batch, belongs to the trainer: it is
// `algorithm.vcrlFilter` of `curricula train` (src/algorithms/vcrl-filter.ts, the same p for 0/1 rewards);
// this selector plus that filter is the paper's full method. This selector counts reward > 0.5 as a
// success (binary verifiable rewards); the filter uses the rewards' variance.
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
  requireNonEmptyPool,
} from './shared.ts';
import { topK } from './top-k.ts';

export const vcrlOptions = z.strictObject({
  threshold: z.number().min(0).max(1).default(0.3),
  bankSize: z.number().int().positive().default(1000),
  replayFraction: z.number().min(0).max(1).default(0.5),
});

/** Normalised group variance p = σ²/σ²_max for k successes out of G samples (0 when G < 2). */
export function vcrlScore(successes: number, groupSize: number): number {
  const G = groupSize;
  if (G < 2) return 0;
  const variance = (successes * (G - successes)) / (G * (G - 1));
  const maximum = G % 2 === 0 ? G / (4 * (G - 1)) : (G + 1) / (4 * G);
  return variance / maximum;
}

interface VcrlState {
  selector: 'vcrl';
  bank: [string, number][];
  fresh: ArmListsState;
  lastBatch: string[];
}

export function createVcrl(pool: Problem[], options: unknown): TaskSelector {
  const config = parseOptions('vcrl', vcrlOptions, options);
  requireNonEmptyPool('vcrl', pool);
  const ids = indexById(pool);
  const fresh = new ArmLists([pool.map((_, index) => index)]);
  let bank = new Map<number, number>(); // pool index → last score, in insertion order
  let lastBatch: Problem[] = [];

  return {
    name: 'vcrl',
    select(count: number, rng: Rng): Problem[] {
      const entries = [...bank];
      const replayCount = Math.min(Math.round(count * config.replayFraction), entries.length);
      // Gumbel-top-k on log p: sampling without replacement with probability ∝ p.
      const keys = entries.map(([, score]) => {
        let u = 0;
        while (u === 0) u = rng.next();
        return Math.log(score) - Math.log(-Math.log(u));
      });
      const batch = topK(keys, replayCount).map((entry) => pool[entries[entry][0]]);
      while (batch.length < count) batch.push(pool[fresh.next(0, rng)]);
      lastBatch = batch;
      return batch;
    },
    observe(_step: number, outcomes: readonly GroupOutcome[]): void {
      for (const outcome of outcomes) {
        const index = ids.get(outcome.problem.id);
        if (index === undefined) continue;
        const successes = outcome.rewards.filter((reward) => reward > 0.5).length;
        const score = vcrlScore(successes, outcome.rewards.length);
        bank.delete(index);
        if (score >= config.threshold && score > 0) bank.set(index, score);
      }
      while (bank.size > config.bankSize) {
        let weakest = -1;
        let weakestScore = Number.POSITIVE_INFINITY;
        for (const [index, score] of bank) {
          if (score < weakestScore) {
            weakest = index;
            weakestScore = score;
          }
        }
        bank.delete(weakest);
      }
    },
    state: (): VcrlState => ({
      selector: 'vcrl',
      bank: [...bank].map(([index, score]) => [pool[index].id, score]),
      fresh: fresh.state(),
      lastBatch: lastBatch.map((problem) => problem.id),
    }),
    load(state: unknown): void {
      const saved = expectState<VcrlState>('vcrl', state);
      bank = new Map(saved.bank.map(([id, score]) => [ids.get(id)!, score]));
      fresh.load(saved.fresh);
      lastBatch = saved.lastBatch.map((id) => pool[ids.get(id)!]);
    },
    metrics: () => ({ ...batchMetrics(lastBatch), 'curriculum/bank_size': bank.size }),
  };
}

export const vcrlSelector = defineSelector({
  id: 'vcrl',
  description:
    'variance-based curriculum: replay problems whose group rewards vary most from a priority memory bank',
  paper: {
    title: 'VCRL: Variance-based Curriculum Reinforcement Learning for Large Language Models',
    arxiv: '2509.19803',
  },
  optionsSchema: vcrlOptions,
  create: createVcrl,
});
