// Rollout phases of an RL step: sample G completions per attempt, then grade them. A reward that throws
// on one completion gives that completion 0 with the error as its reason and `error: true` (counted as
// reward/errors, every reason kept in the run store); the step goes on.
// A scaffold removed before the loss (Attempt.trainPrompt, memberPrompts): the group's context is built
// from the training prompt, each member keeps the context it was sampled from (`sampledFrom`).
import type { SampledGroup as CoreSampledGroup, GroupRollout } from '../../core/groups.ts';
import type { Tokenizer } from '../../core/policy.ts';
import type { RewardInput, RewardResult } from '../../core/reward.ts';
import { hasExpertTraces } from '../../guidance/attempt.ts';
import type { Attempt } from '../../guidance/guidance.ts';
import { promptTokens } from '../../tasks/format.ts';
import type { RlContext } from './context.ts';
import { sampleRows } from './sample-rows.ts';

export type { GroupRollout } from '../../core/groups.ts';

/** A group of the loop: its attempt is guidance's Attempt (core/groups.ts holds the shape). */
export type SampledGroup = CoreSampledGroup<Attempt>;

/** [BOS] + `prompt` (the attempt's, or one of its member prompts) + the forced prefix, as token ids. */
export function attemptContext(tokenizer: Tokenizer, attempt: Attempt, prompt: string): number[] {
  return [
    ...promptTokens(tokenizer, { ...attempt.problem, prompt }),
    ...tokenizer.encode(attempt.prefix, `forced prefix of ${attempt.problem.id}`),
  ];
}

/**
 * Samples each attempt's group: `sizes[i]` completions for attempt i (default rollout.groupSize each),
 * less one per expert trace of the attempt (expert-traces.ts adds the traces afterwards), each of at most
 * min(rollout.maxTokens, context length − the attempt's own prompt and prefix) tokens (sample-rows.ts).
 */
export async function sampleGroups(
  ctx: RlContext,
  attempts: readonly Attempt[],
  seed: number,
  sizes?: readonly number[],
): Promise<SampledGroup[]> {
  const { policy, config } = ctx;
  const tokensOf = (attempt: Attempt, prompt: string) => attemptContext(policy.tokenizer, attempt, prompt);
  const contexts = attempts.map((attempt) => tokensOf(attempt, attempt.trainPrompt ?? attempt.prompt));
  const groupSize = config.rollout.groupSize;
  const counts = sampledCounts(attempts, sizes, groupSize) ?? attempts.map(() => groupSize);
  // What each member is sampled from: one row per attempt (its prompt), or one row per member when the
  // attempt has member prompts. A row whose context differs from the training context marks its members.
  const rows = samplingRows(attempts, counts, (attempt, prompt) => tokensOf(attempt, prompt));
  // Each row may fill the context after its own prompt and prefix (sample-rows.ts).
  const limits = rows.map((row) =>
    Math.max(1, Math.min(config.rollout.maxTokens, policy.contextLength - row.context.length)),
  );
  const sampled = await sampleRows(
    policy,
    rows.map((row) => row.context),
    rows.map((row) => row.count),
    limits,
    { temperature: config.rollout.temperature, topP: config.rollout.topP, seed },
  );
  const members: GroupRollout[][] = attempts.map(() => []);
  rows.forEach((row, index) => {
    const restored = !sameTokens(row.context, contexts[row.attempt]);
    for (const sequence of sampled[index]) {
      members[row.attempt].push(
        restored ? { ...sequence, sampledFrom: row.context, sampledPrompt: row.prompt } : sequence,
      );
    }
  });
  return attempts.map((attempt, index) => ({
    attempt,
    context: contexts[index],
    rollouts: members[index],
    completions: members[index].map((sequence) => attempt.prefix + sequence.text),
    rewards: [],
    results: [],
  }));
}

interface SamplingRow {
  attempt: number;
  prompt: string;
  context: number[];
  count: number;
}

/**
 * The sampling rows: one per attempt (its prompt, `counts[i]` completions), or, for an attempt with
 * `memberPrompts`, one row of one completion per member prompt (their number must equal `counts[i]`).
 */
function samplingRows(
  attempts: readonly Attempt[],
  counts: readonly number[],
  tokensOf: (attempt: Attempt, prompt: string) => number[],
): SamplingRow[] {
  return attempts.flatMap((attempt, index) => {
    const prompts = attempt.memberPrompts;
    if (!prompts)
      return [
        {
          attempt: index,
          prompt: attempt.prompt,
          context: tokensOf(attempt, attempt.prompt),
          count: counts[index],
        },
      ];
    if (prompts.length !== counts[index] || (attempt.offPolicy?.length ?? 0) > 0) {
      throw new RangeError(
        `problem ${attempt.problem.id}: ${prompts.length} member prompts for ${counts[index]} sampled members${attempt.offPolicy?.length ? ' (member prompts cannot be mixed with expert traces)' : ''}`,
      );
    }
    return prompts.map((prompt) => ({
      attempt: index,
      prompt,
      context: tokensOf(attempt, prompt),
      count: 1,
    }));
  });
}

function sameTokens(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((token, index) => token === b[index]);
}

/** Completions to sample per attempt: `sizes` (or G) less its expert traces; `sizes` when none has traces. */
function sampledCounts(
  attempts: readonly Attempt[],
  sizes: readonly number[] | undefined,
  groupSize: number,
): readonly number[] | undefined {
  if (!hasExpertTraces(attempts)) return sizes;
  return attempts.map((attempt, index) => {
    const size = sizes?.[index] ?? groupSize;
    const traces = attempt.offPolicy?.length ?? 0;
    if (traces > size) {
      throw new RangeError(
        `problem ${attempt.problem.id}: ${traces} expert traces for a group of ${size} completions`,
      );
    }
    return size - traces;
  });
}

/** Fills `rewards` and `results` of every group. */
export async function scoreGroups(ctx: RlContext, groups: SampledGroup[], step: number): Promise<void> {
  const inputs: RewardInput[] = groups.flatMap((group) =>
    group.completions.map((completion) => ({
      problem: group.attempt.problem,
      completion,
      group: group.completions,
      step,
    })),
  );
  const results = await scoreSafely(ctx, inputs);
  let offset = 0;
  for (const group of groups) {
    group.results = results.slice(offset, offset + group.completions.length);
    group.rewards = group.results.map((result) => result.reward);
    offset += group.completions.length;
  }
}

/** Scores the batch; if the reward throws, scores items one by one so only the failing ones get 0. */
async function scoreSafely(ctx: RlContext, inputs: RewardInput[]): Promise<RewardResult[]> {
  try {
    const results = await ctx.reward.score(inputs);
    if (results.length !== inputs.length) {
      throw new Error(
        `reward '${ctx.reward.name}' returned ${results.length} results for ${inputs.length} inputs`,
      );
    }
    return results.map(sanitize);
  } catch {
    const results: RewardResult[] = [];
    for (const input of inputs) {
      try {
        const [result] = await ctx.reward.score([input]);
        results.push(sanitize(result));
      } catch (error) {
        results.push({
          reward: 0,
          components: {},
          reason: `reward error: ${(error as Error).message}`,
          error: true,
        });
      }
    }
    return results;
  }
}

/**
 * A non-finite reward would poison the advantages, and a result of the wrong shape (not an object, reward
 * not a number, components not numbers; a user's plug-in can return anything) would break the metrics:
 * either becomes 0 with a reason that says what was wrong.
 */
function sanitize(result: RewardResult | undefined): RewardResult {
  const shape = shapeProblem(result);
  if (shape !== null) return { reward: 0, components: {}, reason: `reward ${shape}`, error: true };
  const valid = result as RewardResult;
  if (!Number.isFinite(valid.reward)) {
    return {
      reward: 0,
      components: valid.components ?? {},
      reason: `reward was ${valid.reward}`,
      error: true,
    };
  }
  return valid.components === undefined ? { ...valid, components: {} } : valid;
}

/** What is wrong with the shape of a reward's result (null: a RewardResult, its reward maybe non-finite). */
function shapeProblem(result: unknown): string | null {
  if (result === undefined) return 'was undefined';
  if (result === null || typeof result !== 'object' || Array.isArray(result)) {
    return `result is not an object (got ${result === null ? 'null' : Array.isArray(result) ? 'an array' : typeof result})`;
  }
  const { reward, components, reason } = result as Record<string, unknown>;
  if (typeof reward !== 'number') return `result's reward is not a number (got ${typeof reward})`;
  if (components !== undefined) {
    if (components === null || typeof components !== 'object' || Array.isArray(components)) {
      return "result's components is not an object of numbers";
    }
    for (const [key, value] of Object.entries(components)) {
      if (typeof value !== 'number')
        return `result's component '${key}' is not a number (got ${typeof value})`;
    }
  }
  if (reason !== undefined && typeof reason !== 'string') return "result's reason is not a string";
  return null;
}
