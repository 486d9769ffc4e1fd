// The guidance contract (how much help): turns the selected problems into attempts — the prompt the policy
// sees, an optional forced prefix of the completion (a hint, an oracle prefix), and optional expert traces
// injected into the group (LUFFY / Prefix-RFT) — and learns from the outcomes. Implementations live in
// this folder, one file each, registered in index.ts.
//
// Expert traces (`Attempt.offPolicy`): each trace REPLACES one of the group's sampled completions (the
// group still has G members: G − k sampled, then the k traces in the order given, so GroupOutcome.rewards
// ends with the traces' rewards). A trace's text is the start of its completion, written by the expert,
// not sampled: `complete` traces are the whole completion (EOS appended), others are continued by the
// policy (sampled, on-policy tokens). Expert tokens are trained with the expert term of the scaffold's
// `expertLoss` (src/algorithms/losses/expert-tokens.ts), the policy's own tokens with the configured RL
// loss (rollout.ts samples, update.ts marks the tokens). A forced `prefix` stays context before both.
//
// Privileged context (`Attempt.privilegedContext`, privileged-hint): text appended to the prompt for the
// SCORER only (a teacher's forward over the student's tokens, src/training/components/teachers/distillation.ts); the
// policy samples from `prompt` and never sees it. A scaffold that sets it brings `privilegedScorer`.
// Scaffolds removed before the loss (`trainPrompt`, `memberPrompts`; RuscaRL's
// graded_system_prompt_participate_training=False, ERL's internalization): the policy samples with the
// scaffolded prompt, the completion is trained as an answer to `trainPrompt`. rollout.ts builds the group's
// context from trainPrompt and keeps each member's sampling context; update.ts recomputes the old
// log-probs of those members under the training context (one forward) before the loss.
// Retries (`Guidance.retry`, src/guidance/retry-contract.ts): after a round is graded, a scaffold may ask
// for a second round on some groups; src/training/components/retry/retry-round.ts samples it and merges the results.
// Teacher help (`Guidance.teacherHelp`, src/guidance/teacher-help-contract.ts; AMPO): after a round is
// graded, a scaffold may have the run's teachers' solutions replace members of some groups;
// src/training/components/teachers/teacher-help-round.ts installs them as complete expert traces.
import type { ExpertTermConfig } from '../algorithms/losses/expert-tokens.ts';
import type { OpdOptions } from '../algorithms/opd.ts';
import type { Problem } from '../core/problem.ts';
import type { GroupOutcome } from '../core/selector.ts';
import type { Attempt } from './attempt.ts';
import type { RetryHook } from './retry-contract.ts';
import type { TeacherHelpHook } from './teacher-help-contract.ts';

export type { Attempt, ExpertTrace } from './attempt.ts';

/** The guidance (scaffold) contract: turn selected problems into attempts, learn from their outcomes, save and restore state. */
export interface Guidance {
  readonly name: string;
  /** One attempt per problem, in order. */
  plan(problems: readonly Problem[], step: number): Attempt[];
  /** Learns from the graded groups of `step`. */
  observe(step: number, outcomes: readonly GroupOutcome[]): void;
  /** JSON-serialisable state, saved with checkpoints. */
  state(): unknown;
  /** Restores a state returned by `state()`. */
  load(state: unknown): void;
  /** Metrics under guidance/… (e.g. guidance/guided_frac). */
  metrics(): Record<string, number>;
  /** The term for expert tokens, for a scaffold that injects traces (setup.ts mixes it into the loss). */
  readonly expertLoss?: ExpertTermConfig;
  /** A second, helped round after grading (reflect-then-retry; retry-round.ts runs it). */
  readonly retry?: RetryHook;
  /** Teacher solutions replacing members after grading (AMPO; teacher-help-round.ts runs it). */
  readonly teacherHelp?: TeacherHelpHook;
  /** Who scores the policy's tokens under `privilegedContext`, and the OPD term (setup.ts builds it). */
  readonly privilegedScorer?: PrivilegedScorer;
}

/** `teacher`: 'initial' (frozen copy of init.checkpoint), 'current' (the policy itself) or a pool name. */
export interface PrivilegedScorer {
  teacher: string;
  opd: OpdOptions;
}

/** What a scaffold may need to know about the run when it is built (setup.ts passes it). */
export interface GuidanceContext {
  /** The selector's pool: every problem plan() can be given. */
  pool: readonly Problem[];
  /** train.steps, for schedules over training. */
  totalSteps: number;
  /** Where the pool came from (a pool file, the task mix), for config-time error messages. */
  source: string;
  /** rollout.groupSize (per-member scaffolds and retries size their rounds by it). */
  groupSize?: number;
  /** True when rollout.budget varies group sizes per problem (a per-member scaffold refuses it). */
  adaptiveGroupSize?: boolean;
  /** The run's seed, for a scaffold's own seeded stream (its state is saved with its state()). */
  seed?: number;
  /** Names of the run's teacher.pool (empty or absent = no teacher block), for scaffolds that need teachers. */
  teachers?: readonly string[];
}

/** `context` is optional so that option checks run without a pool; a scaffold that needs it says so. */
export type GuidanceFactory = (options: unknown, context?: GuidanceContext) => Guidance;
