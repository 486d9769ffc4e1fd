// ReMix's replay of past rollouts (component.ts): the trained groups of the last `history` steps, with
// their behaviour policy's log-probs as sampled, kept as plain data so that a checkpoint saves them and
// a resumed run replays the same groups. Pure bookkeeping: nothing here calls a model.
import { z } from 'zod';
import { CheckpointError } from '../../../core/errors.ts';
import type { Problem } from '../../../core/problem.ts';
import type { RewardResult } from '../../../core/reward.ts';
import type { SampledGroup } from '../../rl/rollout.ts';

/** One buffered member: what the loss and the advantage estimator read of it. */
interface StoredRollout {
  tokens: number[];
  text: string;
  logprobs: number[];
  samplingLogprobs: number[];
  stopReason: 'eos' | 'stop' | 'length';
  expertTokens?: number;
  lossMask?: number[];
}

/** One buffered group and the step that sampled it. */
export interface StoredGroup {
  step: number;
  problemId: string;
  prompt: string;
  prefix: string;
  context: number[];
  rollouts: StoredRollout[];
  completions: string[];
  rewards: number[];
  results: RewardResult[];
}

const storedSchema = z.array(
  z.strictObject({
    step: z.number().int().positive(),
    problemId: z.string(),
    prompt: z.string(),
    prefix: z.string(),
    context: z.array(z.number().int()),
    rollouts: z.array(
      z.strictObject({
        tokens: z.array(z.number().int()),
        text: z.string(),
        logprobs: z.array(z.number()),
        samplingLogprobs: z.array(z.number()),
        stopReason: z.enum(['eos', 'stop', 'length']),
        expertTokens: z.number().int().nonnegative().optional(),
        lossMask: z.array(z.number()).optional(),
      }),
    ),
    completions: z.array(z.string()),
    rewards: z.array(z.number()),
    results: z.array(z.looseObject({ reward: z.number(), components: z.record(z.string(), z.number()) })),
  }),
);

/**
 * Why a group cannot be replayed, or null: a member sampled from another context (a scaffold removed
 * before the loss) has no behaviour log-probs under the context it is trained on.
 */
export function unreplayable(group: SampledGroup): string | null {
  if (group.rollouts.some((rollout) => rollout.sampledFrom)) return 'a member was sampled from a scaffold';
  if (group.rollouts.some((rollout) => rollout.replayedFrom !== undefined)) return 'it is itself a replay';
  return null;
}

/** A copy of the group as the buffer keeps it (nothing shared with the step's objects). */
export function storeGroup(group: SampledGroup, step: number): StoredGroup {
  return structuredClone({
    step,
    problemId: group.attempt.problem.id,
    prompt: group.attempt.prompt,
    prefix: group.attempt.prefix,
    context: group.context,
    rollouts: group.rollouts.map((rollout) => ({
      tokens: rollout.tokens,
      text: rollout.text,
      logprobs: rollout.logprobs,
      samplingLogprobs: rollout.samplingLogprobs,
      stopReason: rollout.stopReason,
      ...(rollout.expertTokens !== undefined && { expertTokens: rollout.expertTokens }),
      ...(rollout.lossMask && { lossMask: rollout.lossMask }),
    })),
    completions: group.completions,
    rewards: group.rewards,
    results: group.results,
  });
}

export class ReplayBuffer {
  private groups: StoredGroup[] = [];

  constructor(private readonly problems: ReadonlyMap<string, Problem>) {}

  get size(): number {
    return this.groups.length;
  }

  /** Adds a step's groups and forgets those sampled before step − history + 1. */
  add(groups: readonly StoredGroup[], step: number, history: number): void {
    this.groups = [...groups, ...this.groups].filter((group) => group.step > step - history);
  }

  clear(): void {
    this.groups = [];
  }

  /** Fresh SampledGroups of the buffered groups (newest step first), at most `limit`. */
  replay(limit = Number.POSITIVE_INFINITY): SampledGroup[] {
    return this.groups.slice(0, limit).map((stored) => {
      const copy = structuredClone(stored);
      return {
        attempt: {
          problem: this.problem(copy.problemId),
          prompt: copy.prompt,
          prefix: copy.prefix,
          guided: false,
        },
        context: copy.context,
        rollouts: copy.rollouts.map((rollout) => ({ ...rollout, replayedFrom: copy.step })),
        completions: copy.completions,
        rewards: copy.rewards,
        results: copy.results,
      };
    });
  }

  state(): StoredGroup[] {
    return structuredClone(this.groups);
  }

  /** Restores `state()`; every buffered problem must be in the pool. */
  load(saved: unknown): void {
    const parsed = storedSchema.safeParse(saved);
    if (!parsed.success) throw new CheckpointError("the checkpoint's ReMix replay buffer is malformed");
    for (const group of parsed.data) this.problem(group.problemId);
    this.groups = parsed.data as StoredGroup[];
  }

  private problem(id: string): Problem {
    const problem = this.problems.get(id);
    if (!problem) {
      throw new CheckpointError(
        `the checkpoint's ReMix replay buffer holds problem ${id}, which is not in this run's pool`,
      );
    }
    return problem;
  }
}
