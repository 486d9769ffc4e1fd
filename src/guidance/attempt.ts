// One problem as the policy will attempt it (the guidance contract's unit, guidance.ts explains each
// field's role in the step), and the expert traces a scaffold injects. In a file of its own so that the
// retry and teacher-help contracts, which carry attempts, do not import the guidance contract back.
import type { Problem } from '../core/problem.ts';

/** One problem as the policy will attempt it: prompt, forced prefix, expert traces and what the loss trains on. */
export interface Attempt {
  problem: Problem;
  /** Text given to the policy (the problem's prompt, possibly with a hint). */
  prompt: string;
  /** Forced start of the completion, not sampled and not trained on ('' = none). */
  prefix: string;
  /** True when this attempt received help (logged as guidance/guided_frac). */
  guided: boolean;
  /** Expert traces that replace sampled members of the group (absent or empty = none). */
  offPolicy?: readonly ExpertTrace[];
  /** Appended to `prompt` for the scorer only, never shown to the policy (absent = none). */
  privilegedContext?: string;
  /**
   * The prompt the completions are TRAINED as answers to (absent = `prompt`): a scaffold in `prompt` (or
   * `memberPrompts`) conditions sampling only and is removed before the loss.
   */
  trainPrompt?: string;
  /**
   * One prompt per sampled member, in order (absent = `prompt` for every member); its length must equal
   * the members sampled for the attempt (RuscaRL: a different share of the rubric per rollout).
   */
  memberPrompts?: readonly string[];
}

/** An expert's text that replaces one sampled member of a group. */
export interface ExpertTrace {
  /** The expert's text: the start of the completion (after any forced prefix). */
  text: string;
  /** true: the trace is the whole completion (EOS appended, nothing sampled); false: the policy continues. */
  complete: boolean;
}

/** Whether any attempt carries expert traces (its group then samples fewer completions). */
export function hasExpertTraces(attempts: readonly Attempt[]): boolean {
  return attempts.some((attempt) => (attempt.offPolicy?.length ?? 0) > 0);
}
