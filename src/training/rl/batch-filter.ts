// The batch filters of an RL step: which sampled groups a step trains on, and how many extra sampling
// rounds it may spend to fill its batch with them. Each entry of `batchFilters` reads its own block of
// `algorithm` (DAPO dynamic sampling: src/algorithms/dynamic-sampling.ts; VCRL's variance filter:
// src/algorithms/vcrl-filter.ts). When several are enabled a group must pass all of them, and the step may
// use the largest of their round budgets. rlStep hands the result to fillBatch.
import { isInformative } from '../../algorithms/dynamic-sampling.ts';
import { vcrlKeep } from '../../algorithms/vcrl-filter.ts';
import type { RewardedGroup } from '../../core/groups.ts';
import type { RlConfig } from './config.ts';

export interface BatchFilter {
  /** true when the group joins the training batch. */
  keep(group: RewardedGroup): boolean;
  /** Extra sampling rounds per step (beyond the first) before training on a partial batch. */
  maxRounds: number;
}

type Algorithm = RlConfig['algorithm'];

/** Each filter: null when its block disables it. */
const batchFilters: readonly ((algorithm: Algorithm) => BatchFilter | null)[] = [
  ({ dynamicSampling }) =>
    dynamicSampling.enabled ? { keep: isInformative, maxRounds: dynamicSampling.maxRounds } : null,
  ({ vcrlFilter }) =>
    vcrlFilter.enabled ? { keep: vcrlKeep(vcrlFilter.threshold), maxRounds: vcrlFilter.maxRounds } : null,
];

/** The combined filter of every enabled block, or null when none is enabled (train on the first batch). */
export function batchFilter(algorithm: Algorithm): BatchFilter | null {
  const enabled = batchFilters
    .map((make) => make(algorithm))
    .filter((filter): filter is BatchFilter => filter !== null);
  if (enabled.length === 0) return null;
  return {
    keep: (group) => enabled.every((filter) => filter.keep(group)),
    maxRounds: Math.max(...enabled.map((filter) => filter.maxRounds)),
  };
}
