// algorithm.kl.anneal in real RL steps on demo-cold: the step's β (kl/coefficient) is the schedule's, and
// the KL loss term the update adds is that β times the aggregated KL (losses/kl_penalty / losses/kl under
// token-mean with one minibatch); with the coefficient at 0 the reference is still loaded for the anneal.
import { describe, expect, it } from 'vitest';
import { rlConfigSchema } from './config.ts';
import { buildContext } from './setup.ts';
import { rlStep } from './step.ts';

const config = (kl: object) =>
  rlConfigSchema.parse({
    seed: 3,
    init: { checkpoint: 'examples/checkpoints/demo-cold' },
    tasks: [{ task: 'addition', difficulties: [4] }],
    poolSize: 4,
    algorithm: { kl: { estimator: 'k3', mode: 'loss', ...kl } },
    rollout: { groupSize: 4, maxTokens: 32 },
    train: { steps: 3, batchSize: 2, learningRate: 1e-4 },
    policy: { workers: 1 },
  });

describe('algorithm.kl.anneal in a real RL step', () => {
  it('β of step s is the linear anneal, and the loss term uses it', async () => {
    const ctx = await buildContext(config({ coefficient: 0.5, anneal: { to: 0.1 } }));
    try {
      const expected = [0.5, 0.3, 0.1];
      for (let step = 1; step <= 3; step++) {
        const report = await rlStep(ctx, step, 1e-4);
        expect(report.metrics['kl/coefficient']).toBeCloseTo(expected[step - 1], 12);
        const kl = report.metrics['losses/kl'];
        // From step 2 the policy has moved from the reference, so the KL is not 0.
        if (step > 1) expect(kl).toBeGreaterThan(0);
        if (kl > 0) expect(report.metrics['losses/kl_penalty'] / kl).toBeCloseTo(expected[step - 1], 9);
      }
    } finally {
      await ctx.policy.close?.();
    }
  }, 60_000);

  it('coefficient 0 annealed upward still loads the reference', async () => {
    const ctx = await buildContext(config({ coefficient: 0, anneal: { to: 0.2 } }));
    try {
      expect(ctx.reference).not.toBeNull();
    } finally {
      await ctx.policy.close?.();
    }
  }, 30_000);
});
