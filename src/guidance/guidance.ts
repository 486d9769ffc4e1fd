// The guidance contract (how much help): turns the selected problems into attempts — the prompt the policy
// sees and an optional forced prefix of the completion (a hint, an oracle prefix) — and learns from the
// outcomes. Implementations live in this folder, one file each, registered in index.ts.
import type { Problem } from '../core/problem.ts';
import type { GroupOutcome } from '../core/selector.ts';

export interface Attempt {
  problem: Problem;
  /** Text given to the policy (the problem's prompt, possibly with a hint). */
  prompt: string;
  /** Forced start of the completion, not sampled and not trained on ('' = none). */
  prefix: string;
  /** True when this attempt received help (logged as guidance/guided_frac). */
  guided: boolean;
}

export interface Guidance {
  readonly name: string;
  plan(problems: readonly Problem[], step: number): Attempt[];
  observe(step: number, outcomes: readonly GroupOutcome[]): void;
  state(): unknown;
  load(state: unknown): void;
  metrics(): Record<string, number>;
}

/** What a scaffold may need to know about the run when it is built (setup.ts passes it). */
export interface GuidanceContext {
  /** The selector's pool: every problem plan() can be given. */
  pool: readonly Problem[];
  /** train.steps, for schedules over training. */
  totalSteps: number;
  /** Where the pool came from (a pool file, the task mix), for config-time error messages. */
  source: string;
}

/** `context` is optional so that option checks run without a pool; a scaffold that needs it says so. */
export type GuidanceFactory = (options: unknown, context?: GuidanceContext) => Guidance;
