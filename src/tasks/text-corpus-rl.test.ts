// The text-corpus task and its rewards inside the RL loop: two GRPO steps on demo-cold (one worker) with
// next-token, next-segment (exact and judge) and information-gain; the example configs parse and validate; a corpus with a
// character outside the vocabulary fails in buildContext before any model loads.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfigFile } from '../core/config.ts';
import { ConfigError } from '../core/errors.ts';
import { rlConfigSchema } from '../training/rl/config.ts';
import { buildContext } from '../training/rl/setup.ts';
import { rlStep } from '../training/rl/step.ts';
import { validateMix } from './problem-mix.ts';

const config = (reward: object, difficulties: number[], options: object = {}) =>
  rlConfigSchema.parse({
    seed: 3,
    init: { checkpoint: 'examples/checkpoints/demo-cold' },
    tasks: [{ task: 'text-corpus', difficulties, options }],
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

describe('text-corpus in the RL loop (demo-cold, workers 1)', () => {
  it.each([
    [{ name: 'next-token' }, [1]],
    [{ name: 'next-segment' }, [2]],
    [{ name: 'next-segment', options: { grader: 'judge', judge: { maxTokens: 8 } } }, [2]],
    [{ name: 'information-gain' }, [1, 2]],
  ])(
    '%j: two steps, finite rewards, no reward errors',
    async (reward, difficulties) => {
      const ctx = await buildContext(config(reward, difficulties));
      try {
        for (const step of [1, 2]) {
          const report = await rlStep(ctx, step, 1e-4);
          expect(report.rewardErrors).toEqual({});
          expect(Number.isFinite(report.metrics['reward/mean'])).toBe(true);
        }
      } finally {
        await ctx.policy.close?.();
      }
    },
    120_000,
  );

  it('the example configs parse and their task mix validates', () => {
    for (const path of ['examples/text-corpus-train.yaml', 'examples/text-corpus-information-gain.yaml']) {
      const parsed = loadConfigFile(rlConfigSchema, path);
      expect(() => validateMix(parsed.tasks, 'tasks')).not.toThrow();
    }
  });

  it('a corpus character outside the vocabulary fails in buildContext, naming it and its line', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'text-corpus-rl-')), 'bad.txt');
    writeFileSync(path, 'fine line\nna\u00efve line\n');
    const attempt = buildContext(config({ name: 'next-token' }, [1], { path }));
    await expect(attempt).rejects.toThrow(ConfigError);
    await expect(attempt).rejects.toThrow(/'\\u00ef' \(U\+00EF\) at line 2:3/);
  });

  it('a window too wide for the checkpoint’s context fails in buildContext (config time), naming the level', async () => {
    const attempt = buildContext(config({ name: 'next-token' }, [1], { window: 200 }));
    await expect(attempt).rejects.toThrow(ConfigError);
    await expect(attempt).rejects.toThrow(
      /tasks\.0: text-corpus difficulty 1: sequences need up to \d+ tokens .* context of .* \(128\)/,
    );
  });
});
