// Judges that grade a group at once (the group-level hook of tinker-cookbook's `compute_group_rewards` and
// ART's `ruler_score_group`): the inputs of a batch are bucketed by their group (RewardInput.group, the
// completions sampled for one problem in this step; an input without one is a group of itself), the
// family's prompts are asked once per group, and its verdict gives every member's score. A failed call or
// malformed verdict fails every member of the group, each with the reward's failure policy (RULER skips the
// group: `onFailure: drop-group`).
import type { Problem } from '../../core/problem.ts';
import type { Reward, RewardInput, RewardResult } from '../../core/reward.ts';
import type { JudgeAnswer, JudgeTransport } from './client.ts';
import { type JudgedScore, judgeFailed, judgeRewardShell, usageComponents } from './judge-reward.ts';
import type { FailurePolicy } from './options.ts';
import type { Parsed } from './verdict.ts';

export interface GroupFamily {
  readonly name: string;
  /** The prompts for one group (its problem and every member's completion, in group order). */
  prompts(problem: Problem, members: readonly string[]): string[];
  /** One score per member, in group order. */
  verdict(replies: readonly JudgeAnswer[], members: readonly string[]): Parsed<JudgedScore[]>;
}

export interface Bucket {
  problem: Problem;
  members: readonly string[];
  /** [input index, member index] of the inputs of this group. */
  at: [number, number][];
}

/** Inputs bucketed by group; each input mapped to its member (duplicate texts in order of appearance). */
export function bucketsOf(inputs: readonly RewardInput[]): Bucket[] {
  const byGroup = new Map<readonly string[], Bucket>();
  const buckets: Bucket[] = [];
  inputs.forEach((input, i) => {
    const members = input.group ?? [input.completion];
    let bucket = input.group ? byGroup.get(input.group) : undefined;
    if (!bucket) {
      bucket = { problem: input.problem, members, at: [] };
      buckets.push(bucket);
      if (input.group) byGroup.set(input.group, bucket);
    }
    const taken = new Set(bucket.at.map(([, member]) => member));
    const member = members.findIndex((text, m) => text === input.completion && !taken.has(m));
    bucket.at.push([i, member < 0 ? members.indexOf(input.completion) : member]);
  });
  return buckets;
}

export function groupJudgeReward(
  family: GroupFamily,
  client: JudgeTransport,
  onFailure: FailurePolicy,
): Reward {
  const judgeBucket = async (bucket: Bucket): Promise<RewardResult[]> => {
    const prompts = family.prompts(bucket.problem, bucket.members);
    let answers: JudgeAnswer[];
    try {
      answers = await Promise.all(prompts.map((prompt) => client.ask(prompt)));
    } catch (error) {
      const failure = judgeFailed(`judge call failed: ${(error as Error).message}`, onFailure, []);
      return bucket.members.map(() => failure);
    }
    const verdict = family.verdict(answers, bucket.members);
    if (!verdict.ok) {
      const failure = judgeFailed(`judge verdict malformed: ${verdict.why}`, onFailure, answers);
      return bucket.members.map(() => failure);
    }
    for (const [i, prompt] of prompts.entries()) client.remember(prompt, answers[i]);
    // the group's usage is shared out over its members
    const usage = usageComponents(answers);
    const share = Object.fromEntries(
      Object.entries(usage).map(([key, value]) => [
        key,
        key === 'judge_cached' ? value : value / bucket.members.length,
      ]),
    );
    return verdict.value.map((score) => ({
      reward: score.reward,
      components: { ...score.components, ...share, judge_failed: 0 },
      ...(score.reason ? { reason: score.reason } : {}),
    }));
  };
  return judgeRewardShell(family.name, client, async (inputs) => {
    const buckets = bucketsOf(inputs);
    const judged = await Promise.all(buckets.map(judgeBucket));
    const results: RewardResult[] = new Array(inputs.length);
    buckets.forEach((bucket, b) => {
      for (const [i, member] of bucket.at) results[i] = judged[b][member];
    });
    return results;
  });
}
