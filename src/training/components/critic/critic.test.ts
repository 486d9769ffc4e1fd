// The critic (components/critic) in the RL loop on demo-cold: with `gae` the policy loss gets per-token
// advantages from the value model (whitened GAE over the batch, checked against gae() on the critic's own
// values), the critic trains towards the returns (its values move), its weights travel with the
// checkpoint, and a run stopped after 2 steps and resumed logs exactly the metrics of the run that went
// straight to 3 — which it cannot if the critic restarted from its initial weights. Config errors for the
// pairings it cannot serve come before any model is built.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { gae, whiten } from '../../../algorithms/advantages/gae.ts';
import { ConfigError } from '../../../core/errors.ts';
import { stopAndResume } from '../../../testing/training/rl/resume-check.ts';
import { rlConfigSchema } from '../../rl/config.ts';
import { buildContext, validateRlConfig } from '../../rl/setup.ts';
import { rlStep } from '../../rl/step.ts';
import { criticOf } from './component.ts';

const config = (runsDir: string, steps = 3, overrides: Record<string, unknown> = {}) =>
  rlConfigSchema.parse({
    name: 'critic',
    runsDir,
    seed: 7,
    init: { checkpoint: 'examples/checkpoints/demo-cold' },
    tasks: [{ task: 'addition', difficulties: [2] }],
    poolSize: 6,
    rollout: { groupSize: 3, maxTokens: 32 },
    algorithm: { advantage: { name: 'gae' }, critic: { learningRate: 1e-3 } },
    train: { steps, batchSize: 2, learningRate: 1e-4 },
    eval: { every: 0, problemsPerDifficulty: 1, samples: 1 },
    checkpoint: { latestEvery: 1 },
    log: { samplesPerStep: 0 },
    policy: { workers: 1 },
    ...overrides,
  });

describe('critic in the RL loop (demo-cold, workers 1)', () => {
  it('GAE advantages from the value model reach the loss; the critic trains towards the returns', async () => {
    const ctx = await buildContext(config('/tmp/unused'));
    const critic = criticOf(ctx)!;
    const round = critic.round;
    // What the round hands the loss, next to gae() + whiten() recomputed on the critic's values at that
    // moment (before its training step moves them).
    let expected: number[][] = [];
    let handed: (number[] | undefined)[][] = [];
    const original = round.advantages.bind(round);
    round.advantages = (groups, estimate) => {
      const values = round.critic.values(
        groups.flatMap((group) => group.rollouts.map((rollout) => [...group.context, ...rollout.tokens])),
        4096,
      );
      let k = 0;
      expected = whiten(
        groups.flatMap((group) =>
          group.rollouts.map(
            (_, i) => gae(group.rewards[i], values[k++].slice(group.context.length - 1), 1, 1).advantages,
          ),
        ),
      );
      handed = original(groups, estimate);
      return handed;
    };
    try {
      const probe = [ctx.policy.tokenizer.bos, ...ctx.policy.tokenizer.encode('12+34\nA:46')];
      const [before] = round.critic.values([probe], 4096);
      const report = await rlStep(ctx, 1, 1e-4);
      expect(report.metrics['critic/vf_loss']).toBeGreaterThan(0);
      expect(Number.isFinite(report.metrics['critic/vf_explained_var'])).toBe(true);
      expect(report.metrics['perf/time/critic_values']).toBeGreaterThan(0);
      expect(report.metrics['perf/time/critic_train']).toBeGreaterThan(0);
      const [after] = round.critic.values([probe], 4096);
      expect(after).not.toEqual(before);
      const flat = handed.flat();
      expect(flat).toHaveLength(expected.length);
      flat.forEach((row, index) => {
        expect(row).toHaveLength(expected[index].length);
        for (const [t, value] of row!.entries()) expect(value).toBeCloseTo(expected[index][t], 9);
      });
      // The step's groups carry the per-token advantages the loss trained on (their means, per member).
      let k = 0;
      for (const group of report.groups) {
        expect(group.advantageKind).toBe('token-mean');
        for (const advantage of group.advantages!) {
          const row = expected[k++];
          expect(advantage).toBeCloseTo(row.reduce((sum, value) => sum + value, 0) / row.length, 9);
        }
      }
    } finally {
      await ctx.policy.close?.();
      await critic.close?.();
    }
  }, 120_000);

  it('the critic is saved with each checkpoint; stop after 2 + resume = 3 straight', async () => {
    const { straight, resumed, stoppedRunDir } = await stopAndResume((dir) => config(dir), 2, 'critic');
    const saved = join(stoppedRunDir, 'checkpoints', 'step-000002', 'components', 'critic', 'model');
    expect(existsSync(join(saved, 'value-head.safetensors'))).toBe(true);
    expect(resumed.steps).toBe(3);
    expect(straight.metrics.map((line) => Number.isFinite(line['critic/vf_loss']))).toEqual([
      true,
      true,
      true,
    ]);
    expect(resumed.metrics).toEqual(straight.metrics);
  }, 180_000);

  it('refuses gae without a critic, a critic without gae, and a remote policy, before any model', () => {
    const base = config('/tmp/unused');
    const without = { ...base, algorithm: { ...base.algorithm, critic: undefined } };
    expect(() => validateRlConfig(without as typeof base)).toThrow(/'gae' needs a value model/);
    const grpo = { ...base, algorithm: { ...base.algorithm, advantage: { name: 'grpo' } } };
    expect(() => validateRlConfig(grpo as typeof base)).toThrow(/used by 'gae' only/);
    const remote = { ...base, policy: { ...base.policy, backend: 'tinker' } } as typeof base;
    expect(() => validateRlConfig(remote)).toThrow(ConfigError);
    expect(() =>
      rlConfigSchema.parse({ ...base, algorithm: { ...base.algorithm, critic: { gama: 1 } } }),
    ).toThrow(/gama/);
  });
});
