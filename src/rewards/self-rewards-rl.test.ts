// The self-rewards inside the RL loop: buildContext hands them the policy (late-bound), and two steps of
// GRPO on demo-cold (one worker) run with each, logging reward/self_gold_agreement; outside the RL loop
// (`rewards check`) a reward that needs the policy fails with a ConfigError before any scoring.
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../core/errors.ts';
import { additionProblem } from '../testing/rewards/test-problems.ts';
import { rlConfigSchema } from '../training/rl/config.ts';
import { buildContext } from '../training/rl/setup.ts';
import { rlStep } from '../training/rl/step.ts';
import { checkRewardCases } from './check.ts';

const config = (reward: object) =>
  rlConfigSchema.parse({
    seed: 3,
    init: { checkpoint: 'examples/checkpoints/demo-cold' },
    tasks: [{ task: 'addition', difficulties: [2] }],
    poolSize: 4,
    reward,
    rollout: { groupSize: 4, maxTokens: 32 },
    algorithm: {
      advantage: { name: 'grpo' },
      loss: { name: 'ppo-clip', options: { aggregation: 'token-mean' } },
    },
    train: { steps: 2, batchSize: 2, learningRate: 1e-4 },
    policy: { workers: 1 },
  });

describe('self-rewards in the RL loop (demo-cold, workers 1)', () => {
  it.each([
    [{ name: 'self-confidence' }],
    [{ name: 'self-confidence', options: { form: 'answer' } }],
    [{ name: 'self-consistency', options: { cuts: 2 } }],
    [{ name: 'synthesized-reference', options: { show: 'answers', maxTokens: 24 } }],
    [
      {
        name: 'composite',
        options: { parts: [{ name: 'verifier' }, { name: 'self-consistency', options: { cuts: 2 } }] },
      },
    ],
  ])(
    '%j: two steps, finite rewards, gold agreement logged',
    async (reward) => {
      const ctx = await buildContext(config(reward));
      try {
        for (const step of [1, 2]) {
          const report = await rlStep(ctx, step, 1e-4);
          expect(report.rewardErrors).toEqual({});
          expect(Number.isFinite(report.metrics['reward/mean'])).toBe(true);
          const agreement =
            report.metrics['reward/self_gold_agreement'] ??
            report.metrics['reward/self-consistency/self_gold_agreement'];
          expect(agreement).toBeGreaterThanOrEqual(0);
          expect(agreement).toBeLessThanOrEqual(1);
        }
      } finally {
        await ctx.policy.close?.();
      }
    },
    120_000,
  );

  it('refusal-aware on a countdown mix with 50% unanswerable problems: two steps, refusal rates logged', async () => {
    const ctx = await buildContext({
      ...config({ name: 'refusal-aware', options: { madeUp: -0.5 } }),
      tasks: rlConfigSchema.shape.tasks.parse([
        { task: 'countdown', difficulties: [3] },
        { task: 'countdown-unanswerable', difficulties: [3] },
      ]),
    });
    try {
      const logged = new Set<string>();
      for (const step of [1, 2]) {
        const report = await rlStep(ctx, step, 1e-4);
        expect(report.rewardErrors).toEqual({});
        for (const key of ['reward/unanswerable_refused', 'reward/false_refusal', 'reward/correct']) {
          const value = report.metrics[key];
          if (value === undefined) continue;
          expect(value).toBeGreaterThanOrEqual(0);
          expect(value).toBeLessThanOrEqual(1);
          logged.add(key);
        }
      }
      // Both kinds of problem were drawn (seed 3): each rate was logged at least once.
      expect([...logged].sort()).toEqual([
        'reward/correct',
        'reward/false_refusal',
        'reward/unanswerable_refused',
      ]);
    } finally {
      await ctx.policy.close?.();
    }
  }, 120_000);

  it('`rewards check` (no policy): a ConfigError before scoring', async () => {
    const cases = [{ problem: additionProblem('5'), prediction: 'A:5', group: ['A:5', 'A:6'], expected: 1 }];
    await expect(checkRewardCases('self-consistency', {}, cases as never)).rejects.toThrow(ConfigError);
    await expect(
      checkRewardCases('self-confidence', { form: 'answer' }, cases as never),
    ).resolves.toBeTruthy();
  });
});
