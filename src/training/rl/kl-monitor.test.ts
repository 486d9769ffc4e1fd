// algorithm.kl.monitor: the frozen reference is loaded at coefficient 0 and the KL of each step's trained
// completions to it is logged (kl/ref_*), with no penalty. Before any update the policy is the reference
// (KL ≈ 0, only the sampler/learner float mismatch); after a large update it is clearly positive. Without
// the flag (and at coefficient 0) there is no reference and no kl/ref_* metric.
import { describe, expect, it } from 'vitest';
import { rlConfigSchema } from './config.ts';
import { buildContext } from './setup.ts';
import { rlStep } from './step.ts';

const config = (monitor: boolean) =>
  rlConfigSchema.parse({
    seed: 5,
    init: { checkpoint: 'examples/checkpoints/demo-cold' },
    tasks: [{ task: 'addition', difficulties: [2] }],
    poolSize: 8,
    reward: { name: 'verifier' },
    rollout: { groupSize: 4, maxTokens: 32 },
    algorithm: { kl: { monitor } },
    train: { steps: 3, batchSize: 4, learningRate: 1e-2 },
    policy: { workers: 1 },
  });

describe('algorithm.kl.monitor', () => {
  it('logs the KL to the initial policy: ≈ 0 before an update, > 0 after large ones; absent without it', async () => {
    const ctx = await buildContext(config(true));
    try {
      expect(ctx.reference).not.toBeNull();
      const first = await rlStep(ctx, 1, 3e-2);
      expect(Math.abs(first.metrics['kl/ref_token_k1'])).toBeLessThan(1e-4);
      expect(first.metrics['kl/ref_token_k3']).toBeLessThan(1e-6);
      expect(first.metrics['reward/kl_penalty']).toBeUndefined();
      await rlStep(ctx, 2, 3e-2);
      const third = await rlStep(ctx, 3, 3e-2);
      expect(third.metrics['kl/ref_token_k3']).toBeGreaterThan(1e-3);
      expect(third.metrics['kl/ref_sequence_k1']).toBeGreaterThan(third.metrics['kl/ref_token_k1']);
    } finally {
      await ctx.policy.close?.();
      await ctx.reference?.close?.();
    }
    const plain = await buildContext(config(false));
    try {
      expect(plain.reference).toBeNull();
      const report = await rlStep(plain, 1, 1e-4);
      expect(report.metrics['kl/ref_token_k1']).toBeUndefined();
    } finally {
      await plain.policy.close?.();
    }
  }, 120_000);
});
