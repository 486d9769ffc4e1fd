// Scaffolds removed before the loss, in real RL steps on examples/checkpoints/demo-cold (workers 1):
// rubric-scaffold's members are sampled
// with criteria before the prompt and trained on the bare prompt's real token ids, and the old log-probs the
// loss gets for them are the policy's under the bare prompt (not the sampler's under the scaffold); retry's
// successful retries replace failed members, trained the same way, and the retry prompt never holds the
// gold answer.
import { describe, expect, it } from 'vitest';
import type { LossSequence } from '../algorithms/losses/policy-loss.ts';
import type { Datum } from '../core/policy.ts';
import { promptTokens } from '../tasks/format.ts';
import { rlConfigSchema } from '../training/rl/config.ts';
import type { RlContext } from '../training/rl/context.ts';
import type { SampledGroup } from '../training/rl/rollout.ts';
import { buildContext } from '../training/rl/setup.ts';
import { rlStep } from '../training/rl/step.ts';
import { answerPosition } from './leakage.ts';

const config = (seed: number, guidance: object, difficulty: number, problems: number) =>
  rlConfigSchema.parse({
    seed,
    init: { checkpoint: 'examples/checkpoints/demo-cold' },
    tasks: [{ task: 'addition', difficulties: [difficulty] }],
    poolSize: problems,
    guidance,
    rollout: { groupSize: 4, maxTokens: 48 },
    train: { steps: 10, batchSize: problems, learningRate: 1e-4 },
    policy: { workers: 1 },
  });

interface Recorded {
  data: Datum[];
  sequences: LossSequence[];
  /** Per trained sequence (tokens joined): the policy's log-probs at the sampling weights. */
  before: Map<string, number[]>;
}

/**
 * Records what the step sends to forwardBackward and to the loss (the real backend and loss still run),
 * and, before the first optimizer step, the policy's own log-probs of every sent sequence (an independent
 * forward of the same weights the sequences were sampled with).
 */
function record(ctx: RlContext): Recorded {
  const recorded: Recorded = { data: [], sequences: [], before: new Map() };
  const policy = ctx.policy as {
    forwardBackward: (data: Datum[], loss: never) => Promise<unknown>;
    optimStep: (options: never) => Promise<unknown>;
  };
  const forwardBackward = policy.forwardBackward.bind(policy);
  const optimStep = policy.optimStep.bind(policy);
  let stepped = false;
  policy.forwardBackward = async (data, loss) => {
    recorded.data.push(...data);
    if (!stepped) {
      const logprobs = await ctx.policy.forward(data.map((datum) => datum.tokens));
      data.forEach((datum, index) => {
        recorded.before.set(datum.tokens.join(), logprobs[index]);
      });
    }
    return forwardBackward(data, loss);
  };
  policy.optimStep = (options) => {
    stepped = true;
    return optimStep(options);
  };
  const loss = ctx.loss;
  ctx.loss = {
    ...loss,
    resolveOptions: loss.resolveOptions.bind(loss),
    compute: (sequences, options) => {
      recorded.sequences.push(...sequences);
      return loss.compute(sequences, options);
    },
  };
  return recorded;
}

const close = (a: readonly number[], b: readonly number[], tolerance = 1e-5) =>
  a.length === b.length && a.every((value, index) => Math.abs(value - b[index]) <= tolerance);

/**
 * Every trained member sampled from a scaffold: its datum is the bare context + its tokens, context
 * weights 0, and the loss's π_old is the policy's log-probs under the bare context. Returns how many.
 */
async function checkRestored(
  ctx: RlContext,
  groups: readonly SampledGroup[],
  recorded: Recorded,
): Promise<number> {
  let checked = 0;
  for (const group of groups) {
    expect(group.context).toEqual(promptTokens(ctx.policy.tokenizer, group.attempt.problem));
    for (const rollout of group.rollouts) {
      if (!rollout.sampledFrom) continue;
      const tokens = [...group.context, ...rollout.tokens];
      const datum = recorded.data.find((candidate) => candidate.tokens.join() === tokens.join());
      const bare = recorded.before.get(tokens.join());
      if (!datum || !bare) continue; // not trained (an empty completion)
      expect(datum.weights.slice(0, group.context.length - 1).every((weight) => weight === 0)).toBe(true);
      const expected = bare.slice(group.context.length - 1);
      // The sampler's log-probs under the scaffold differ: recomputing them matters.
      expect(close(expected, rollout.logprobs, 1e-3)).toBe(false);
      expect(recorded.sequences.some((sequence) => close(sequence.oldLogprobs!, expected))).toBe(true);
      expect(recorded.sequences.some((sequence) => close(sequence.oldLogprobs!, rollout.logprobs))).toBe(
        false,
      );
      checked++;
    }
  }
  return checked;
}

describe('scaffolds removed before the loss, in a real step', () => {
  it('rubric-scaffold: criteria before the prompt when sampling, the bare prompt and its π_old when training', async () => {
    const ctx = await buildContext(
      config(4, { name: 'rubric-scaffold', options: { selection: 'ordered' } }, 3, 3),
    );
    const recorded = record(ctx);
    try {
      const report = await rlStep(ctx, 1, 0);
      const { tokenizer } = ctx.policy;
      for (const group of report.groups) {
        const { attempt } = group;
        // n = 4 at step 1 (s ≈ 1): r = 1, 2/3, 1/3, 0 of the problem's criteria; the last member is bare.
        expect(attempt.memberPrompts).toHaveLength(4);
        expect(attempt.trainPrompt).toBe(attempt.problem.prompt);
        expect(attempt.memberPrompts![3]).toBe(attempt.problem.prompt);
        expect(attempt.memberPrompts![0].endsWith(`\n${attempt.problem.prompt}`)).toBe(true);
        group.rollouts.forEach((rollout, j) => {
          if (j === 3) expect(rollout.sampledFrom).toBeUndefined();
          else {
            expect(rollout.sampledFrom).toEqual(
              promptTokens(tokenizer, { ...attempt.problem, prompt: attempt.memberPrompts![j] }),
            );
          }
        });
      }
      expect(await checkRestored(ctx, report.groups, recorded)).toBeGreaterThan(3);
      expect(report.metrics['guidance/guided_frac']).toBe(1);
      // Restored members are left out of the mismatch metrics (their sampler log-probs are another context's).
      expect(report.metrics['mismatch/tokens']).toBeLessThan(
        report.groups.reduce(
          (sum, group) => sum + group.rollouts.reduce((s, r) => s + r.tokens.length, 0),
          0,
        ),
      );
    } finally {
      await ctx.policy.close?.();
    }
  }, 60_000);

  it('retry: successful retries replace failed members and are trained on the original prompt', async () => {
    // demo-cold fails every retry whose text comes before the problem (absolute positions shift); the
    // failed answer line after it lets seed 5 rescue one member (first round 0010|1111|1011|0010 → the
    // last group's last failure replaced).
    const options = {
      template: '{prompt}{attempt}\n',
      trigger: 'any-failure',
      feedback: 'diagnosis',
      shown: 'last-line',
    };
    const ctx = await buildContext(config(5, { name: 'retry', options }, 2, 4));
    const recorded = record(ctx);
    const plans: { shown: string; answer: string }[] = [];
    const hook = ctx.guidance.retry!;
    const plan = hook.plan.bind(hook);
    const firstRound = new Map<object, number[]>();
    hook.plan = (step, groups) => {
      for (const group of groups)
        firstRound.set(
          group,
          group.results.map((result) => result.reward),
        );
      const requests = plan(step, groups);
      for (const { attempt } of requests) {
        expect(attempt.prompt.startsWith(attempt.problem.prompt)).toBe(true);
        expect(attempt.trainPrompt).toBe(attempt.problem.prompt);
        plans.push({
          shown: attempt.prompt.slice(attempt.problem.prompt.length),
          answer: attempt.problem.answer,
        });
      }
      return requests;
    };
    try {
      const report = await rlStep(ctx, 1, 0);
      expect(plans.length).toBeGreaterThan(0);
      for (const { shown, answer } of plans) expect(answerPosition(shown, answer)).toBe(-1);
      expect(report.metrics['guidance/retry_frac']).toBe(0.75);
      expect(report.metrics['guidance/retry_trained']).toBe(1);
      for (const group of report.groups) expect(group.rollouts).toHaveLength(4);
      const replaced = report.groups.flatMap((group) =>
        group.rollouts.filter((rollout) => rollout.sampledFrom),
      );
      expect(replaced).toHaveLength(report.metrics['guidance/retry_trained']);
      expect(await checkRestored(ctx, report.groups, recorded)).toBe(replaced.length);
      // A replaced member was a first-round failure and is now a success, graded against the original
      // problem; every first-round success is kept.
      for (const group of report.groups) {
        const first = firstRound.get(group)!;
        group.rollouts.forEach((rollout, index) => {
          if (rollout.sampledFrom) {
            expect(first[index]).toBe(0);
            expect(group.rewards[index]).toBeGreaterThan(0);
          } else expect(group.rewards[index]).toBe(first[index]);
        });
      }
    } finally {
      await ctx.policy.close?.();
    }
  }, 60_000);
});
