// ReMix (algorithm.remix) on demo-cold, through rlStep as a run calls it: the trained groups of a step are
// replayed at the next one with their sampled log-probs as π_old and this step's log-probs as π_θ (the
// ratio of the mix-policy objective), trained but not observed; the buffer forgets steps older than
// `history`, empties at `reincarnateAt`, and survives a checkpoint. By hand: the replay buffer.
import { describe, expect, it } from 'vitest';
import type { LossSequence } from '../../../algorithms/losses/policy-loss.ts';
import { CheckpointError, ConfigError } from '../../../core/errors.ts';
import type { Problem } from '../../../core/problem.ts';
import { rlConfigSchema } from '../../rl/config.ts';
import type { SampledGroup } from '../../rl/rollout.ts';
import { buildContext, validateRlConfig } from '../../rl/setup.ts';
import { rlStep } from '../../rl/step.ts';
import { ReplayBuffer, storeGroup, unreplayable } from './replay-buffer.ts';

const config = (remix: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) =>
  rlConfigSchema.parse({
    name: 'remix',
    seed: 7,
    init: { checkpoint: 'examples/checkpoints/demo-cold' },
    tasks: [{ task: 'addition', difficulties: [2] }],
    poolSize: 8,
    rollout: { groupSize: 4, maxTokens: 24 },
    algorithm: { remix, ...extra },
    train: { steps: 3, batchSize: 2, learningRate: 3e-3 },
    eval: { every: 0, problemsPerDifficulty: 1, samples: 1 },
    log: { samplesPerStep: 0 },
    policy: { workers: 1 },
  });

const problem = (id: string): Problem => ({
  id,
  task: 'addition',
  difficulty: 1,
  prompt: 'Add: 1+2=',
  answer: '3',
  solution: '3',
  category: 'addition',
  params: {},
});

function group(id: string, rewards: number[]): SampledGroup {
  return {
    attempt: { problem: problem(id), prompt: 'Add: 1+2=', prefix: '', guided: false },
    context: [1, 5, 6],
    rollouts: rewards.map((_, i) => ({
      tokens: [7, 8 + i],
      text: `3${i}`,
      logprobs: [-0.5, -1 - i],
      samplingLogprobs: [-0.6, -1.1 - i],
      stopReason: 'eos' as const,
    })),
    completions: rewards.map((_, i) => `3${i}`),
    rewards,
    results: rewards.map((reward) => ({ reward, components: { correct: reward } })),
  };
}

describe('ReMix replay buffer', () => {
  const problems = new Map([
    ['a', problem('a')],
    ['b', problem('b')],
  ]);

  it('keeps the last `history` steps, newest first, and replays independent copies marked with their step', () => {
    const buffer = new ReplayBuffer(problems);
    buffer.add([storeGroup(group('a', [1, 0]), 1)], 1, 2);
    buffer.add([storeGroup(group('b', [0, 1]), 2)], 2, 2);
    expect(buffer.replay().map((g) => g.attempt.problem.id)).toEqual(['b', 'a']);
    expect(buffer.replay(1).map((g) => g.attempt.problem.id)).toEqual(['b']);
    buffer.add([], 3, 2); // step 1 is now older than history 2
    const [only] = buffer.replay();
    expect(only.attempt.problem.id).toBe('b');
    expect(only.rollouts.map((r) => r.replayedFrom)).toEqual([2, 2]);
    expect(only.rollouts[1].logprobs).toEqual([-0.5, -2]);
    only.rewards[0] = 99;
    only.rollouts[0].logprobs[0] = 99;
    expect(buffer.replay()[0].rewards[0]).toBe(0);
    expect(buffer.replay()[0].rollouts[0].logprobs[0]).toBe(-0.5);
  });

  it('saves and restores its groups; a malformed state or an unknown problem is a CheckpointError', () => {
    const buffer = new ReplayBuffer(problems);
    buffer.add([storeGroup(group('a', [1, 0]), 4)], 4, 1);
    const restored = new ReplayBuffer(problems);
    restored.load(JSON.parse(JSON.stringify(buffer.state())));
    expect(restored.replay()).toEqual(buffer.replay());
    expect(() => restored.load([{ step: 1 }])).toThrow(CheckpointError);
    expect(() => new ReplayBuffer(new Map()).load(buffer.state())).toThrow(
      /problem a, which is not in this run's pool/,
    );
  });

  it('refuses groups sampled from a scaffold and replays of replays', () => {
    const scaffolded = group('a', [1, 0]);
    scaffolded.rollouts[0].sampledFrom = [1, 2, 3];
    expect(unreplayable(scaffolded)).toMatch(/scaffold/);
    expect(unreplayable(group('a', [1, 0]))).toBeNull();
  });
});

describe('algorithm.remix in the step', () => {
  it('replays last step’s groups with π_old = their sampled log-probs and π_θ = this step’s', async () => {
    const ctx = await buildContext(config({ history: 1 }));
    try {
      const first = await rlStep(ctx, 1, 3e-3);
      expect(first.metrics['remix/replayed_groups']).toBe(0);
      expect(first.metrics['remix/buffer_groups']).toBe(2);
      // The test's own forward at the weights step 2 starts from: the π_θ its replayed members must get.
      const sequences = first.groups.flatMap((g) => g.rollouts.map((r) => [...g.context, ...r.tokens]));
      const expected = (await ctx.policy.forward(sequences)).map((row, index) =>
        row.slice(first.groups[Math.floor(index / 4)].context.length - 1),
      );
      const seen: LossSequence[][] = [];
      const compute = ctx.loss.compute.bind(ctx.loss);
      ctx.loss = {
        ...ctx.loss,
        compute: (batch, options) => {
          seen.push([...batch]);
          return compute(batch, options);
        },
      };
      const second = await rlStep(ctx, 2, 3e-3);
      expect(second.metrics['remix/replayed_groups']).toBe(2);
      expect(second.metrics['sampling/trained_groups']).toBe(4);
      expect(second.metrics['sampling/groups']).toBe(2); // sampled (and observed): this step's own
      const batch = seen[0];
      const old = first.groups.flatMap((g) => g.rollouts.map((r) => r.logprobs));
      let moved = 0;
      old.forEach((logprobs, index) => {
        const match = batch.find((s) =>
          s.oldLogprobs === undefined
            ? false
            : s.oldLogprobs.every((v, t) => v === logprobs[t]) && s.oldLogprobs.length === logprobs.length,
        );
        expect(match).toBeDefined();
        match!.logprobs.forEach((value, t) => {
          expect(value).toBeCloseTo(expected[index][t], 5);
          if (Math.abs(value - logprobs[t]) > 1e-4) moved++;
        });
      });
      expect(moved).toBeGreaterThan(0); // step 1's update moved the policy: the ratio is not 1
    } finally {
      await ctx.policy.close?.();
    }
  }, 120_000);

  it('reincarnation empties the buffer; history forgets older steps; the buffer resumes from state', async () => {
    const ctx = await buildContext(config({ history: 1, reincarnateAt: 3 }));
    try {
      await rlStep(ctx, 1, 3e-3);
      const remix = ctx.components.find((component) => component.id === 'remix')!;
      const saved = JSON.parse(JSON.stringify(remix.state!()));
      const second = await rlStep(ctx, 2, 3e-3);
      expect(second.metrics['remix/buffer_groups']).toBe(2); // step 1's forgotten (history 1), step 2's kept
      remix.load!(saved);
      expect(remix.state!()).toEqual(saved);
      const third = await rlStep(ctx, 3, 3e-3);
      expect(third.metrics['remix/replayed_groups']).toBe(0);
      expect(third.metrics['remix/buffer_groups']).toBe(0);
      expect(third.metrics['sampling/trained_groups']).toBe(2);
    } finally {
      await ctx.policy.close?.();
    }
  }, 120_000);

  it('kl.precedent puts part of β on the KL to each sequence’s π_old (0 on the first, on-policy minibatch)', async () => {
    const ctx = await buildContext(config({}, { kl: { coefficient: 0.05, precedent: 0.5 }, minibatches: 2 }));
    try {
      const seen: number[] = [];
      const forwardBackward = ctx.policy.forwardBackward.bind(ctx.policy);
      ctx.policy.forwardBackward = async (data, loss) => {
        seen.push(data.length);
        return forwardBackward(data, loss);
      };
      const report = await rlStep(ctx, 1, 3e-3);
      expect(seen).toHaveLength(2);
      // Averaged over the two minibatches: the first's KL to π_old is exactly 0, the second's is not.
      expect(report.metrics['losses/kl_precedent']).toBeGreaterThan(0);
      expect(report.metrics['losses/kl']).toBeGreaterThan(0);
    } finally {
      await ctx.policy.close?.();
    }
  }, 120_000);

  it('refuses kl.mode reward, remax and gae baselines, and kl.precedent outside mode loss', () => {
    expect(() => validateRlConfig(config({}, { kl: { coefficient: 0.01, mode: 'reward' } }))).toThrow(
      /penalised twice/,
    );
    expect(() => validateRlConfig(config({}, { advantage: { name: 'remax' } }))).toThrow(ConfigError);
    expect(() => validateRlConfig(config({}, { kl: { precedent: 0.5, mode: 'reward' } }))).toThrow(
      /KL-Convex/,
    );
    expect(() => rlConfigSchema.parse({ ...config(), algorithm: { remix: { histroy: 2 } } })).toThrow(
      /histroy/,
    );
  });
});
