// The group types of an RL step, shared by the loop (training/rl), the batch filters (algorithms/) and
// self-play's generator groups (selfplay/): G completions of one attempt, graded. Kept here, at the bottom
// of the house, so every layer that handles groups imports them down. `A` is the attempt that produced the
// group (guidance/attempt.ts's Attempt in the loop); core knows only that it names a problem.

import type { SampledSequence } from './policy.ts';
import type { Problem } from './problem.ts';
import type { RewardResult } from './reward.ts';

/** What a batch filter reads of a group (DAPO dynamic sampling, VCRL): the scalar reward of each sample. */
export interface RewardedGroup {
  readonly rewards: readonly number[];
}

/** One member of a group: sampled, or an expert trace (its first `expertTokens` tokens not sampled). */
export interface GroupRollout extends SampledSequence {
  /** Leading tokens copied from an expert trace (training/components/expert-traces/expert-traces.ts); absent = all sampled. */
  expertTokens?: number;
  /**
   * The context this member was sampled from, when it differs from the group's (training) context: a
   * scaffold removed before the loss (Attempt.trainPrompt / memberPrompts). Its log-probs are the
   * sampler's under THIS context; update.ts recomputes them under the group's context.
   */
  sampledFrom?: number[];
  /** The prompt text of `sampledFrom` (for the run store's guidance record). */
  sampledPrompt?: string;
  /** True for a retry's member that replaced a failed one (retry-round.ts). */
  retried?: boolean;
  /**
   * The step that sampled this member, when a later step replays it (ReMix, components/remix): its
   * log-probs are that step's policy's, the behaviour policy of the importance ratio; update.ts computes
   * the current ones. Absent = sampled this step.
   */
  replayedFrom?: number;
  /**
   * Per token: 1 where the policy sampled it, 0 where an environment wrote it (a tool's output in a
   * multi-turn episode, src/environments): written tokens carry no loss. Absent = every token sampled.
   */
  lossMask?: number[];
  /**
   * The member was a multi-turn episode (training/components/environment/episode-groups.ts): its turns,
   * with spans as indices into `tokens` (absent = a single-turn completion). Only the run store reads it
   * (training/rl/sample-records.ts → the samples table's `episode` column, shown by the dashboard).
   */
  episode?: RolloutEpisode;
}

/** One policy turn of an episode member: spans index the member's `tokens` (the episode after the prompt). */
export interface RolloutTurn {
  /** Index in the member's tokens of the turn's first sampled token. */
  start: number;
  /** Tokens the policy sampled this turn: tokens[start, start + actionTokens). */
  actionTokens: number;
  /** Tokens the environment wrote after them (a tool's output, lossMask 0), after truncation. */
  observationTokens: number;
  /** The observation's length before truncation. */
  observationTokensBefore: number;
  /** This turn's reward from the environment. */
  reward: number;
  /** How the turn's sampling stopped: 'eos' | 'stop' | 'length'. */
  stopReason: string;
  /** The step's error (a malformed call, a failing tool, the environment), when there was one. */
  error?: { kind: string; message: string };
}

/** The turns of an episode member and how the episode ended (src/environments/episode-record.ts). */
export interface RolloutEpisode {
  turns: RolloutTurn[];
  /** Why it ended: 'done' | 'max_turns' | 'max_tokens' | 'parse_error' | 'environment_error'. */
  end: string;
  /** With end 'environment_error': what the environment did wrong. */
  environmentError?: string;
  /** Error counts by kind (parse, tool, environment). */
  errors: Record<string, number>;
}

/** G completions of one attempt and their grades. */
export interface SampledGroup<A extends { problem: Problem } = { problem: Problem }> extends RewardedGroup {
  attempt: A;
  /**
   * [BOS] + prompt + forced prefix: the context the completions are trained on. The policy conditioned on
   * it too, except members with `sampledFrom` (Attempt.trainPrompt: the scaffold is removed before the loss).
   */
  context: number[];
  /**
   * The G members: sampled continuations, then the attempt's expert traces (expert-traces.ts) in order.
   * Tokens and log-probs exclude the forced prefix.
   */
  rollouts: GroupRollout[];
  /** Full completions as graded: forced prefix + sampled text. */
  completions: string[];
  rewards: number[];
  results: RewardResult[];
  /** The advantage the loss used per member, null = not trained (set after the advantage phase). */
  advantages?: (number | null)[];
  /** 'token-mean': per-token advantages, averaged into `advantages`. */
  advantageKind?: 'sequence' | 'token-mean';
}
