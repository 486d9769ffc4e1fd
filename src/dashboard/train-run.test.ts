// The dashboard API over a run made by the real trainer (tiny fresh model, 3 steps of 2 groups of 4
// completions, held-out evaluation before and after, 8 logged samples per step): the keys the product
// logs land in the expected panels' data, the run reads as finished with its tokens, and a step's samples
// group by problem with the task and level parsed from the trainer's problem ids, each completion with the
// details the trainer stored (advantage, per-token log-probs and pieces, guidance).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { rlConfigSchema } from '../training/rl/config.ts';
import { train } from '../training/rl/train.ts';
import { buildDashboard } from './server.ts';

describe('dashboard over a trained run', () => {
  it('serves the run table, series and sample groups of a real 3-step run', async () => {
    const runsDir = mkdtempSync(join(tmpdir(), 'dashboard-train-'));
    await train(
      rlConfigSchema.parse({
        name: 'tiny',
        runsDir,
        model: { preset: 'tiny' },
        tasks: [{ task: 'addition', difficulties: [1, 2] }],
        poolSize: 8,
        rollout: { groupSize: 4, maxTokens: 12 },
        train: { steps: 3, batchSize: 8, learningRate: 0.001 },
        eval: { every: 3, problemsPerDifficulty: 2, samples: 1 },
        log: { samplesPerStep: 8 },
      }),
    );
    const app = await buildDashboard({ runsDir });
    try {
      const get = async (url: string) => JSON.parse((await app.inject(url)).body);
      const [run] = (await get('/api/runs')).runs;
      expect(run).toMatchObject({ name: 'tiny', status: 'finished', lastStep: 3 });
      expect(run.tokens).toBeGreaterThan(0);
      const { keys, sampleSteps } = await get('/api/runs/tiny/keys');
      for (const key of [
        'reward/mean',
        'entropy',
        'losses/approx_kl',
        'train/grad_norm',
        'eval/pass@1/addition/2',
      ])
        expect(keys).toContain(key);
      expect(sampleSteps).toEqual([1, 2, 3]);
      const { series } = await get('/api/runs/tiny/series?keys=reward/mean,eval/pass@1');
      expect(series['reward/mean'][0]).toEqual([1, 2, 3]);
      expect(series['eval/pass@1'][0]).toEqual([0, 3]);
      const { groups } = await get('/api/runs/tiny/samples?step=3');
      const completions = groups.flatMap((group: any) => group.completions);
      expect(completions).toHaveLength(8);
      for (const group of groups) {
        expect(group.task).toBe('addition');
        expect(['1', '2']).toContain(group.level);
      }
      // What the trainer stored with each completion: the advantage, a log-prob per token piece, guidance.
      for (const completion of completions) {
        expect(completion.advantageKind).toBe('sequence');
        expect(completion.advantage === null || Number.isFinite(completion.advantage)).toBe(true);
        expect(completion.logprobs.length).toBe(completion.tokens.length);
        expect(completion.tokens.length).toBeGreaterThan(0);
        expect(completion.completion.startsWith(completion.tokens.join(''))).toBe(true);
        expect(completion).toMatchObject({
          scaffold: 'identity',
          guided: false,
          expert: false,
          retry: false,
        });
      }
      const histogram = await get('/api/runs/tiny/histogram?step=3');
      expect(histogram.total).toBe(8);
    } finally {
      await app.close();
    }
  });
});
