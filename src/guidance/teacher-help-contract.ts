// The teacher-help part of the guidance contract (AMPO, arXiv 2510.02227; ampo.ts): after a round of
// groups is graded, a scaffold may ask the run's teachers for solutions and have them REPLACE some
// members of a group in the same step (AMPO's `mix_off_policy_rollout` runs between grading and the
// advantage). The RL step calls the hook once per rollout round (src/training/components/teachers/teacher-help-round.ts),
// gives it the tools below, and installs what it returns: each replacement becomes a complete expert
// trace (the text's tokens + EOS, all marked expert tokens, trained with the scaffold's `expertLoss`),
// with the reward the hook gives it.
//
// Why a post-grading hook and not `Attempt.offPolicy`: expert traces are planned before sampling, but
// AMPO's trigger is the group's OWN outcome in this step (fewer than 1 correct of n), known only after
// grading; planning traces from the previous step's outcome would be a different method.
import type { PolicyBackend, SampledSequence, SampleOptions } from '../core/policy.ts';
import type { Problem } from '../core/problem.ts';
import type { RewardResult } from '../core/reward.ts';
import type { GradedGroup } from './retry-contract.ts';

/**
 * What the hook uses of the run's teacher pool: src/teachers/teacher-pool.ts `Teachers` (ctx.teachers)
 * satisfies it; declared here so that guidance/ does not import teachers/ (imports point down).
 */
export interface TeacherWriters {
  /** A pool teacher's backend (its tokenizer renders the prompt it is given). */
  backend(name: string): Pick<PolicyBackend, 'tokenizer'>;
  /** Completions written by `options.teacher`; a call that throws or times out rejects. */
  sample(
    prompts: number[][],
    sampleOptions: SampleOptions,
    options: { teacher: string },
  ): Promise<SampledSequence[][]>;
}

/** What the hook may use: the run's teachers, the current student, the run's reward. */
export interface TeacherHelpTools {
  /** The run's teacher pool (teacher.pool); a call that throws or times out rejects (TeacherCallError). */
  teachers: TeacherWriters;
  /** The student at its current weights: its tokenizer, and `forward` for scoring. */
  student: PolicyBackend;
  /** Grades completions of one problem with the run's reward (a throwing reward gives 0 with `error`). */
  grade(problem: Problem, completions: readonly string[]): Promise<RewardResult[]>;
  /** Most tokens a complete trace of group `group` may have, EOS included (room after its context). */
  room(group: number): number;
  /** Sampling settings of the run (rollout.topP) for a teacher's call. */
  topP: number;
}

/** One member of one group replaced by a teacher's (or the oracle's) solution. */
export interface TeacherReplacement {
  /** Index of the group in the list given to the hook. */
  group: number;
  /** Index of the member replaced. */
  member: number;
  /** The solution: the whole completion (EOS is appended). */
  text: string;
  /** The grade it is trained with (reward and reason). */
  result: RewardResult;
}

export interface TeacherHelpHook {
  help(step: number, groups: readonly GradedGroup[], tools: TeacherHelpTools): Promise<TeacherReplacement[]>;
}
