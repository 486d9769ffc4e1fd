// The retry part of the guidance contract (reflect-then-retry: ERL, arXiv 2602.13949; R^3L, code
// shiweijiezero/R3L; retry.ts): after a round of groups is graded, a scaffold may ask for a second
// round on some of them (`plan`), with a prompt that carries what went wrong. The RL step samples and
// grades that round (src/training/components/retry/retry-round.ts), lets successful retries replace failed members of
// the original group (at most `maxReplace`), and reports back (`observe`). A retry attempt sets
// `trainPrompt` to the original prompt: the retried completions are trained as answers to the bare problem.
import type { RewardResult } from '../core/reward.ts';
import type { Attempt } from './attempt.ts';

/** A graded group, as a retrying scaffold sees it. */
export interface GradedGroup {
  attempt: Attempt;
  /** The graded completions (forced prefix + sampled text), in member order. */
  completions: readonly string[];
  results: readonly RewardResult[];
}

export interface RetryRequest {
  /** Index of the group (in the list given to plan) this retry belongs to. */
  group: number;
  /** The retry's attempt: its prompt carries the feedback; trainPrompt = the group's training prompt. */
  attempt: Attempt;
  /** Completions to sample for the retry. */
  samples: number;
  /** Successful retries that may replace failed members of the group (0 = none is trained). */
  maxReplace: number;
}

export interface RetryResult {
  request: RetryRequest;
  /** Rewards of the retry's completions, in order. */
  rewards: readonly number[];
  /** How many failed members of the group successful retries replaced. */
  replaced: number;
}

export interface RetryHook {
  plan(step: number, groups: readonly GradedGroup[]): RetryRequest[];
  observe(step: number, results: readonly RetryResult[]): void;
}
