// ReMax (advantage 'remax' with its component) on demo-cold: one greedy (temperature 0, n 1) sample per
// group from the group's own context, graded by the run's reward; every trained sample's advantage is its
// reward minus that group's one baseline; the greedy tokens are counted apart. By hand: remaxAdvantages.
import { describe, expect, it } from 'vitest';
import { remaxAdvantages } from '../../../algorithms/advantages/remax.ts';
import type { SampleOptions } from '../../../core/policy.ts';
import { rlConfigSchema } from '../../rl/config.ts';
import { buildContext, validateRlConfig } from '../../rl/setup.ts';
import { rlStep } from '../../rl/step.ts';
import { remaxComponent } from './component.ts';

const config = () =>
  rlConfigSchema.parse({
    name: 'remax',
    seed: 5,
    init: { checkpoint: 'examples/checkpoints/demo-cold' },
    tasks: [{ task: 'addition', difficulties: [1, 2] }],
    poolSize: 8,
    rollout: { groupSize: 4, maxTokens: 32 },
    algorithm: { advantage: { name: 'remax' } },
    train: { steps: 1, batchSize: 3, learningRate: 1e-4 },
    eval: { every: 0, problemsPerDifficulty: 1, samples: 1 },
    log: { samplesPerStep: 0 },
    policy: { workers: 1 },
  });

describe('remax', () => {
  it('A = r − r_greedy by hand', () => {
    expect(remaxAdvantages([1, 0, 1], 1)).toEqual([0, -1, 0]);
    expect(remaxAdvantages([1, 0], 0)).toEqual([1, 0]);
  });

  it('samples one greedy completion per group, grades it, and subtracts it from each member', async () => {
    const ctx = await buildContext(config());
    const calls: { prompts: number[][]; options: SampleOptions }[] = [];
    const sample = ctx.policy.sample.bind(ctx.policy);
    ctx.policy.sample = async (prompts, options) => {
      calls.push({ prompts, options });
      return sample(prompts, options);
    };
    try {
      const report = await rlStep(ctx, 1, 1e-4);
      const greedyCalls = calls.filter((call) => call.options.temperature === 0);
      expect(greedyCalls).toHaveLength(1);
      expect(greedyCalls[0].options.n).toBe(1);
      expect(greedyCalls[0].prompts).toEqual(report.groups.map((group) => group.context));
      const baselines = report.groups.map((group) => {
        const implied = group.rewards.map((reward, i) => reward - group.advantages![i]!);
        for (const value of implied) expect(value).toBeCloseTo(implied[0], 12);
        return implied[0];
      });
      const mean = baselines.reduce((sum, value) => sum + value, 0) / baselines.length;
      expect(report.metrics['remax/greedy_reward']).toBeCloseTo(mean, 12);
      expect(report.metrics['sampling/remax_tokens']).toBeGreaterThan(0);
      expect(report.metrics['perf/time/remax_greedy']).toBeGreaterThan(0);
    } finally {
      await ctx.policy.close?.();
    }
  }, 120_000);

  it('refuses a pairing that also sets per-token advantages', () => {
    const base = config();
    const opd = { ...base, teacher: { pool: [], timeoutMs: 1000, opd: {} } } as unknown as typeof base;
    // remax's own check (the teachers component would first ask for a teacher in the pool)
    expect(() => validateRlConfig(opd, [remaxComponent])).toThrow(/remax.*teacher\.opd/);
  });
});
