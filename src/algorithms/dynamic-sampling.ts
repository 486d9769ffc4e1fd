// DAPO dynamic sampling: groups whose rewards are all equal (every sample right, or every sample wrong)
// have zero group-relative advantage and give no gradient, so drop them and sample more prompts until the
// batch holds `target` informative groups.
// Paper: "DAPO: An Open-Source LLM Reinforcement Learning System at Scale" (Yu et al. 2025),
// arXiv 2503.14476, §3.2. Authors' code: verl recipe/dapo/dapo_ray_trainer.py (reference/curricula.md A6):
// keep a prompt iff std(metric) > 0 or it has a single sample; accumulate kept groups over generation
// batches until train_batch_size; stop after max_num_gen_batches (default 10 in the recipe scripts);
// truncate to train_batch_size.
//
// Deviations: when the round bound is hit DAPO raises an error (or loops forever with 0 = unlimited); here
// fillBatch returns what it has with full = false and a reason, and there is no unlimited mode. DAPO asks
// for a fixed generation batch each round (gen_prompt_bsz = 3 × train_prompt_bsz); here the sampler is
// told how many groups are still missing and may over-sample as it likes. Equality is exact (std > 0 in
// DAPO), so rewards from a continuous score are all informative unless identical.
import { ConfigError } from '../core/errors.ts';
import type { RewardedGroup } from '../core/groups.ts';

/** false when every reward of the group is equal; a group of one sample counts as informative (as in DAPO). */
export function isInformative(group: RewardedGroup): boolean {
  if (group.rewards.length <= 1) return true;
  return group.rewards.some((reward) => reward !== group.rewards[0]);
}

export interface GroupFilterResult<G> {
  kept: G[];
  dropped: G[];
  /** dropped / all groups (0 for an empty list). */
  filteredFraction: number;
}

export function filterInformativeGroups<G extends RewardedGroup>(
  groups: readonly G[],
  keep: (group: G) => boolean = isInformative,
): GroupFilterResult<G> {
  const kept: G[] = [];
  const dropped: G[] = [];
  for (const group of groups) (keep(group) ? kept : dropped).push(group);
  return { kept, dropped, filteredFraction: groups.length > 0 ? dropped.length / groups.length : 0 };
}

export interface FillBatchResult<G> {
  /** At most `target` informative groups, in the order they were sampled. */
  groups: G[];
  /** true when `groups` holds `target` groups. */
  full: boolean;
  /** Sampler calls made. */
  rounds: number;
  /** Groups returned by the sampler over all rounds. */
  sampledGroups: number;
  /** Uninformative groups / sampled groups over all rounds (metric sampling/filtered_frac). */
  filteredFraction: number;
  /** Why the batch is not full; absent when it is. */
  reason?: string;
}

/**
 * Asks `sampleMore(needed)` for groups until `target` groups that pass `keep` (default: DAPO's informative
 * rule; the VCRL filter passes its own) are kept or `maxRounds` sampler calls (the first one included,
 * like DAPO's max_num_gen_batches) have been made; then returns what it has.
 */
export async function fillBatch<G extends RewardedGroup>(
  target: number,
  sampleMore: (needed: number) => Promise<G[]>,
  maxRounds: number,
  keep: (group: G) => boolean = isInformative,
): Promise<FillBatchResult<G>> {
  if (!Number.isInteger(target) || target < 1) {
    throw new ConfigError(`dynamic sampling: target batch size must be a positive integer, got ${target}`);
  }
  if (!Number.isInteger(maxRounds) || maxRounds < 1) {
    throw new ConfigError(`dynamic sampling: maxRounds must be a positive integer, got ${maxRounds}`);
  }
  const kept: G[] = [];
  let rounds = 0;
  let sampledGroups = 0;
  let dropped = 0;
  let reason: string | undefined;
  while (kept.length < target) {
    if (rounds >= maxRounds) {
      reason = `stopped after ${rounds} sampling rounds (maxRounds) with ${kept.length} of ${target} informative groups`;
      break;
    }
    const needed = target - kept.length;
    const groups = await sampleMore(needed);
    rounds += 1;
    if (groups.length === 0) {
      reason = `the sampler returned no groups in round ${rounds}; kept ${kept.length} of ${target}`;
      break;
    }
    const filtered = filterInformativeGroups(groups, keep);
    sampledGroups += groups.length;
    dropped += filtered.dropped.length;
    kept.push(...filtered.kept);
  }
  const groups = kept.slice(0, target);
  return {
    groups,
    full: groups.length === target,
    rounds,
    sampledGroups,
    filteredFraction: sampledGroups > 0 ? dropped / sampledGroups : 0,
    ...(reason === undefined ? {} : { reason }),
  };
}
