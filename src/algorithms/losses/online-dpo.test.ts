// Online DPO against numbers worked out by hand from the DPO sigmoid loss (TRL loss_type sigmoid, β 0.1):
// z = β·((Σ logp − Σ logp_ref)(y_w) − (…)(y_l)), L = −log σ(z), ∂L/∂logp = ±β(σ(z) − 1) per token.
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../core/errors.ts';
import { rlConfigSchema } from '../../training/rl/config.ts';
import { buildContext, validateRlConfig } from '../../training/rl/setup.ts';
import { rlStep } from '../../training/rl/step.ts';
import { policyLosses } from './index.ts';
import { preferencePairs } from './online-dpo.ts';
import type { LossSequence } from './policy-loss.ts';

const dpo = policyLosses.get('online-dpo');

const member = (group: number, reward: number, logprobs: number[], refLogprobs: number[]): LossSequence => ({
  logprobs,
  refLogprobs,
  advantages: 0,
  mask: logprobs.map(() => 1),
  group,
  reward,
});

describe('online-dpo', () => {
  it('one pair: Δ_w = 1, Δ_l = −0.2, z = 0.12: L = 0.634946, weights ∓0.047004', () => {
    const sequences = [
      member(0, 1, [-1, -2], [-1.5, -2.5]),
      member(0, 0, [-1], [-0.8]),
      member(0, 0.5, [-3], [-3]), // neither best nor worst: no gradient
    ];
    const result = dpo.compute(sequences);
    expect(result.loss).toBeCloseTo(0.6349461016, 9);
    for (const weight of result.weights[0]) expect(weight).toBeCloseTo(-0.0470035948, 9);
    expect(result.weights[1][0]).toBeCloseTo(0.0470035948, 9);
    expect(result.weights[2]).toEqual([0]);
    expect(result.metrics['losses/dpo_pairs']).toBe(1);
    expect(result.metrics['losses/dpo_accuracy']).toBe(1);
    expect(result.metrics['losses/dpo_margin']).toBeCloseTo(1.2, 12);
  });

  it('pairs per group, first best and first worst; a group of equal rewards gives none; the mean over pairs', () => {
    const sequences = [
      member(3, 0, [-1], [-1]),
      member(3, 1, [-1], [-1]),
      member(3, 1, [-1], [-1]),
      member(5, 1, [-2], [-2]),
      member(5, 1, [-2], [-2]),
      member(7, 0, [-1], [-1]),
      member(7, 1, [-1], [-1]),
    ];
    expect(preferencePairs(sequences)).toEqual([
      [1, 0],
      [6, 5],
    ]);
    // z = 0 for both: L = log 2, each weight β(½ − 1)/2
    const result = dpo.compute(sequences);
    expect(result.loss).toBeCloseTo(Math.log(2), 12);
    expect(result.weights[1][0]).toBeCloseTo(-0.025, 12);
    expect(result.weights[2][0]).toBe(0);
  });

  it('needs groups, rewards and the reference; refuses minibatches > 1 at config time', () => {
    expect(() => dpo.compute([{ logprobs: [-1], advantages: 0, mask: [1] }])).toThrow(
      /needs each sequence's group/,
    );
    expect(() =>
      dpo.compute([{ ...member(0, 1, [-1], [-1]), refLogprobs: undefined }, member(0, 0, [-1], [-1])]),
    ).toThrow(/needs the reference policy's log-probs/);
    const config = rlConfigSchema.parse({
      tasks: [{ task: 'addition', difficulties: [1] }],
      init: { checkpoint: 'examples/checkpoints/demo-cold' },
      train: { steps: 1, learningRate: 1e-4 },
      algorithm: { loss: { name: 'online-dpo' }, minibatches: 2 },
    });
    expect(() => validateRlConfig(config)).toThrow(ConfigError);
    expect(() => validateRlConfig(config)).toThrow(/set algorithm.minibatches to 1/);
  });

  it('in the loop (demo-cold): setup loads the reference for it, and a step trains on the pairs', async () => {
    const ctx = await buildContext(
      rlConfigSchema.parse({
        name: 'online-dpo',
        seed: 3,
        init: { checkpoint: 'examples/checkpoints/demo-cold' },
        tasks: [{ task: 'addition', difficulties: [3, 4, 5] }],
        poolSize: 12,
        rollout: { groupSize: 6, maxTokens: 32 },
        // majority-vote (TTRL) rewards the samples that agree with the group's majority answer: mixed groups
        // whenever the answers differ (the verifier's 0/1 gives demo-cold all-or-nothing groups here)
        reward: { name: 'majority-vote' },
        algorithm: { loss: { name: 'online-dpo' } },
        train: { steps: 1, batchSize: 6, learningRate: 1e-4 },
        eval: { every: 0, problemsPerDifficulty: 1, samples: 1 },
        log: { samplesPerStep: 0 },
        policy: { workers: 1 },
      }),
    );
    try {
      expect(ctx.reference).not.toBeNull();
      const report = await rlStep(ctx, 1, 1e-4);
      const mixed = report.groups.filter((group) => new Set(group.rewards).size > 1).length;
      expect(mixed).toBeGreaterThan(0);
      expect(report.metrics['losses/dpo_pairs']).toBe(mixed);
      expect(Number.isFinite(report.metrics['losses/policy'])).toBe(true);
    } finally {
      await ctx.policy.close?.();
      await ctx.reference?.close?.();
    }
  }, 120_000);
});
