// The environment contract (issue 30): a multi-turn episode between the policy and an environment, at the
// level of tokens, after tinker-cookbook's `Env` (tinker_cookbook/rl/types.py: initial_observation() →
// (ModelInput, StopCondition); step(action tokens) → StepResult(reward, episode_done, next_observation,
// next_stop_condition, metrics)). One deviation: an observation here is what the environment APPENDS to
// the episode (the tokens after the policy's last action), never the whole context again, so the tokens
// the policy sampled are kept verbatim by construction and nothing is re-rendered (the drift TRL #5224,
// verl #6779 and prime-rl #1334 report comes from re-rendering). An environment that speaks messages
// renders each newly appended message to tokens itself.
//
// The episode runner (episode.ts) owns the loop: it samples an action for every live episode in one
// batched call, awaits every environment's step concurrently, appends the observation, and enforces the
// limits (limits.ts). An environment is single-use: one episode, then close().
import type { StopReason } from '../core/policy.ts';

/** When the policy's turn ends, besides EOS and the token budget. */
export interface StopCondition {
  /** Stop strings (kept in the action), e.g. the end tag of a tool call. */
  stop?: string[];
  /** Most tokens this turn may sample (the runner's limits cap it further). */
  maxTokens?: number;
}

/** What an environment shows the policy: tokens appended to the episode, and how the next turn stops. */
export interface Observation {
  /** Token ids appended to the episode (the first observation is the whole prompt, BOS included). */
  tokens: number[];
  /** How the next turn stops; absent on a step's observation: as the turn before. */
  stop?: StopCondition;
}

/** The policy's turn, as sampled: its tokens verbatim, their decoded text and why sampling stopped. */
export interface Action {
  tokens: number[];
  text: string;
  stopReason: StopReason;
}

/**
 * Why a step did not go as the policy meant it (counted per kind in the episode): 'parse' a malformed call
 * (the parse-error policy applies, limits.ts), 'tool' a tool that threw or timed out (reported to the model
 * by the environment), 'environment' the environment itself threw or did not answer within the step
 * timeout (set by the runner; the episode ends with a zero return).
 */
export type StepErrorKind = 'parse' | 'tool' | 'environment';

/** An error of a step: its kind and what the policy (and the log) is told. */
export interface StepError {
  kind: StepErrorKind;
  message: string;
}

/** What one step returns. */
export interface StepResult {
  /** Reward of this turn (the episode's return is their sum). Must be finite. */
  reward: number;
  /** The episode is over: no observation follows. */
  done: boolean;
  /** Tokens appended after the action when not done (masked from the loss). */
  observation?: Observation;
  /** A malformed call, a tool that failed or timed out: what the policy is told, and the count. */
  error?: StepError;
  /** Numbers logged with the episode (e.g. tool calls made). */
  metrics?: Record<string, number>;
}

/** One episode's environment: single-use, made per problem by its factory. */
export interface Environment {
  /** The prompt of the episode (BOS included) and how the first turn stops. */
  initialObservation(): Promise<Observation>;
  /** Takes the policy's action; says the turn's reward, whether the episode is over, and what follows. */
  step(action: Action): Promise<StepResult>;
  /** Releases what it holds (processes, handles); called once, whatever happened. */
  close?(): Promise<void>;
}
