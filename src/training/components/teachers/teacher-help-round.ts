// The `teacher help` phase of an RL step (AMPO; contract in src/guidance/teacher-help-contract.ts): after
// a round of groups is graded, the scaffold's hook asks the run's teachers for solutions and returns
// which members of which groups they replace; this phase installs each as a COMPLETE expert trace:
// - tokens: the solution's text tokenized after the group's context (alone, as expert-traces.ts does),
//   EOS appended; every token is an expert token (`expertTokens` = all), trained with the scaffold's
//   expertLoss term (update.ts marks them; setup.ts mixes the term into the loss);
// - log-probs: the student's own at the sampling weights, from one `forward` over context + tokens (π_old
//   for the loss's ratio metrics; the shaped expert term needs only π_θ);
// - completion, reward and reason: the text and the grade the hook gives it.
// With dynamic sampling the phase runs inside each rollout round, before the filter: a zero-success group
// that a teacher rescued has a learning signal and is kept. The hook's replacements are checked (group
// and member in range, one per member, fitting the group's room); a violation is a bug in the scaffold
// and throws.
import type { GradedGroup } from '../../../guidance/retry-contract.ts';
import type { TeacherHelpTools, TeacherReplacement } from '../../../guidance/teacher-help-contract.ts';
import type { Teachers } from '../../../teachers/teacher-pool.ts';
import type { RlContext } from '../../rl/context.ts';
import { type GroupRollout, type SampledGroup, scoreGroups } from '../../rl/rollout.ts';

export async function teacherHelpRound(
  ctx: RlContext,
  teachers: Teachers | null,
  groups: readonly SampledGroup[],
  step: number,
): Promise<void> {
  const hook = ctx.guidance.teacherHelp;
  if (!hook) return;
  if (!teachers) {
    throw new RangeError(`guidance '${ctx.guidance.name}' needs the run's teachers, but none were built`);
  }
  const { policy, config } = ctx;
  const room = (index: number) =>
    Math.min(config.rollout.maxTokens, policy.contextLength - groups[index].context.length);
  const tools: TeacherHelpTools = {
    teachers,
    student: policy,
    room,
    topP: config.rollout.topP,
    async grade(problem, completions) {
      const graded: SampledGroup = {
        attempt: { problem, prompt: problem.prompt, prefix: '', guided: true },
        context: [],
        rollouts: [],
        completions: [...completions],
        rewards: [],
        results: [],
      };
      await scoreGroups(ctx, [graded], step);
      return graded.results;
    },
  };
  const replacements = await hook.help(step, groups as readonly GradedGroup[], tools);
  if (replacements.length === 0) return;
  const taken = new Set<string>();
  for (const { group, member } of replacements) {
    if (taken.has(`${group}/${member}`)) {
      throw new RangeError(`teacher help replaces member ${member} of group ${group} twice`);
    }
    taken.add(`${group}/${member}`);
  }
  const tokens = replacements.map((replacement) => expertTokens(ctx, groups, replacement, room));
  const sequences = replacements.map((replacement, r) => [
    ...groups[replacement.group].context,
    ...tokens[r],
  ]);
  const forward = await policy.forward(sequences);
  replacements.forEach((replacement, r) => {
    const group = groups[replacement.group];
    const logprobs = forward[r].slice(group.context.length - 1);
    const member: GroupRollout = {
      tokens: tokens[r],
      text: replacement.text,
      logprobs,
      samplingLogprobs: [...logprobs],
      stopReason: 'eos',
      expertTokens: tokens[r].length,
    };
    group.rollouts[replacement.member] = member;
    group.completions[replacement.member] = group.attempt.prefix + replacement.text;
    group.rewards[replacement.member] = replacement.result.reward;
    group.results[replacement.member] = replacement.result;
  });
}

/** The replacement's tokens (text + EOS), after checking it against its group. */
function expertTokens(
  ctx: RlContext,
  groups: readonly SampledGroup[],
  replacement: TeacherReplacement,
  room: (index: number) => number,
): number[] {
  const group = groups[replacement.group];
  const where = `teacher help for group ${replacement.group}`;
  if (!group) throw new RangeError(`${where}: only ${groups.length} groups`);
  if (
    !Number.isInteger(replacement.member) ||
    replacement.member < 0 ||
    replacement.member >= group.rollouts.length
  ) {
    throw new RangeError(`${where}: member ${replacement.member} of ${group.rollouts.length}`);
  }
  if (!Number.isFinite(replacement.result.reward)) throw new RangeError(`${where}: reward is not finite`);
  const { tokenizer } = ctx.policy;
  const tokens = [
    ...tokenizer.encode(replacement.text, `teacher solution of ${group.attempt.problem.id}`),
    tokenizer.eos,
  ];
  if (tokens.length > room(replacement.group)) {
    throw new RangeError(`${where}: ${tokens.length} tokens for a room of ${room(replacement.group)}`);
  }
  return tokens;
}
