// One episode as the runner stores it (issue 30): the whole token sequence — first observation, then
// each action followed by the observation the environment appended — with a mask of the tokens the
// policy sampled (trained) and the ones the environment wrote (masked from the loss), the sampled tokens'
// log-probs, and per-turn rewards. episodeDatum turns it into a training Datum whose weights are nonzero
// only on sampled tokens, so the tokens trained are exactly the tokens sampled.
import type { Datum } from '../core/policy.ts';
import type { StepError, StepErrorKind } from './contract.ts';

/** Why an episode ended. */
export type EpisodeEnd =
  | 'done' // the environment said so
  | 'max_turns'
  | 'max_tokens' // the episode or the policy's context is full
  | 'parse_error' // a malformed call under parseErrors 'end' or 'zero'
  | 'environment_error'; // the environment threw or timed out

/** One policy turn of an episode: where its action lies, what followed, its reward and error. */
export interface Turn {
  /** Index in `tokens` of the turn's first sampled token. */
  start: number;
  /** Tokens the policy sampled this turn. */
  actionTokens: number;
  /** Tokens the environment appended after it (after truncation). */
  observationTokens: number;
  /** Tokens the environment's observation had before truncation. */
  observationTokensBefore: number;
  reward: number;
  stopReason: 'eos' | 'stop' | 'length';
  error?: StepError;
}

/** One episode as sampled: tokens, the trained mask, log-probs, turns, return, how it ended. */
export interface Episode {
  /** The whole episode, BOS first. */
  tokens: number[];
  /** 1 where the policy sampled tokens[i], 0 where the environment wrote it. */
  mask: number[];
  /** log p of tokens[i] under the policy when it was sampled (temperature 1); 0 where mask is 0. */
  logprobs: number[];
  /** Same, under the sampling distribution (temperature, top-p). */
  samplingLogprobs: number[];
  turns: Turn[];
  /** Σ turn rewards, or 0 when parseErrors 'zero' or an environment error ended it. */
  return: number;
  end: EpisodeEnd;
  /** With end 'environment_error': what the environment did wrong (also in the last turn, when there is one). */
  environmentError?: string;
  errors: Record<StepErrorKind, number>;
  /** The environment's metrics, summed over turns. */
  metrics: Record<string, number>;
}

/** Zero counts of every error kind. */
export function emptyErrors(): Record<StepErrorKind, number> {
  return { parse: 0, tool: 0, environment: 0 };
}

/**
 * The episode as one training datum: weights[t] (for predicting tokens[t + 1]) = advantage where the
 * policy sampled tokens[t + 1], else 0. Every sampled token shares the episode's advantage.
 */
export function episodeDatum(episode: Episode, advantage: number): Datum {
  const weights = episode.tokens.slice(1).map((_, t) => (episode.mask[t + 1] === 1 ? advantage : 0));
  return { tokens: [...episode.tokens], weights };
}
