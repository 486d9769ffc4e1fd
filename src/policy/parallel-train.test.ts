// The worker-parallel backend through the product's own wiring: an RL config with policy.workers: 2 goes
// through buildContext (setup.ts) to two replicas, and two runs of real RL steps (sampling, verifier
// reward, GRPO, PPO update) with the same seed give bit-identical metrics and weights. policy.workers: 1
// keeps the in-process backend: no worker threads at all. No policy block (or an empty one) is the
// default, auto: one replica per core (the in-process backend on a one-core machine).
import { availableParallelism } from 'node:os';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../core/config.ts';
import { rlConfigSchema } from '../training/rl/config.ts';
import { buildContext } from '../training/rl/setup.ts';
import { rlStep } from '../training/rl/step.ts';
import { EmbeddedBackend } from './embedded-backend.ts';
import { ParallelEmbeddedBackend } from './parallel-backend.ts';

function config(policy?: { workers?: number | 'auto' }) {
  return parseConfig(
    rlConfigSchema,
    {
      name: 'parallel-train',
      seed: 4,
      model: { preset: 'tiny' },
      ...(policy ? { policy } : {}),
      tasks: [{ task: 'addition', difficulties: [1] }],
      poolSize: 32,
      rollout: { groupSize: 4, maxTokens: 12 },
      algorithm: { epochs: 1, minibatches: 2 },
      train: { steps: 2, batchSize: 4, learningRate: 1e-3 },
    },
    'parallel-train test',
  );
}

async function twoSteps(workers: number) {
  const ctx = await buildContext(config({ workers }));
  try {
    expect(ctx.policy).toBeInstanceOf(ParallelEmbeddedBackend);
    const policy = ctx.policy as ParallelEmbeddedBackend;
    expect(policy.workers).toBe(workers);
    const metrics = [];
    for (let step = 1; step <= 2; step++) {
      const report = await rlStep(ctx, step, 1e-3);
      // Timings (perf/*) are the only metrics that may differ.
      metrics.push(
        Object.fromEntries(Object.entries(report.metrics).filter(([key]) => !key.startsWith('perf/'))),
      );
    }
    return { metrics, hashes: await policy.weightHashes() };
  } finally {
    await ctx.policy.close?.();
  }
}

describe('policy.workers in an RL run', () => {
  it('workers 1 is the in-process backend', async () => {
    const ctx = await buildContext(config({ workers: 1 }));
    expect(ctx.policy).toBeInstanceOf(EmbeddedBackend);
    expect(ctx.policy.close).toBeUndefined();
    expect(() => config({ workers: 0 })).toThrow(/policy\.workers/);
    expect(config({ workers: 'auto' }).policy).toEqual({ workers: 'auto' });
  });

  it('the default (no policy block, or one without workers) is auto: one replica per core', async () => {
    expect(config({}).policy).toEqual({ workers: 'auto' });
    const cores = availableParallelism();
    for (const policy of [undefined, {}]) {
      const ctx = await buildContext(config(policy));
      try {
        if (cores === 1) expect(ctx.policy).toBeInstanceOf(EmbeddedBackend);
        else expect((ctx.policy as ParallelEmbeddedBackend).workers).toBe(cores);
      } finally {
        await ctx.policy.close?.();
      }
    }
  }, 120_000);

  it('two RL runs with 2 workers and the same seed are bit-identical', async () => {
    const first = await twoSteps(2);
    const second = await twoSteps(2);
    expect(second).toEqual(first);
    expect(first.hashes[0]).toBe(first.hashes[1]);
    expect(first.metrics[1]['reward/mean']).toBeTypeOf('number');
  }, 120_000);
});
