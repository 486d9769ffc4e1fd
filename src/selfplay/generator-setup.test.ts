// selfPlay.generator: {checkpoint}: the run builds a frozen generator from the checkpoint (here the
// ladder's cold start beside the demo-cold student), a round's proposals are sampled from it and not from
// the student, a 2-step run works end to end, and bad settings are refused before a run directory exists.
import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../core/errors.ts';
import { Rng } from '../core/rng.ts';
import { deterministicMetrics } from '../testing/training/rl/resume-check.ts';
import { selfPlayOf } from '../training/components/self-play.ts';
import { rlConfigSchema } from '../training/rl/config.ts';
import { buildContext } from '../training/rl/setup.ts';
import { train } from '../training/rl/train.ts';
import { selfPlayRound } from './round.ts';

const config = (runsDir: string, selfPlay: object) =>
  rlConfigSchema.parse({
    name: 'generator',
    runsDir,
    seed: 3,
    init: { checkpoint: 'examples/checkpoints/demo-cold' },
    tasks: [{ task: 'addition', difficulties: [2, 3] }],
    poolSize: 8,
    rollout: { groupSize: 2, maxTokens: 48 },
    train: { steps: 2, batchSize: 2, learningRate: 1e-4 },
    eval: { every: 0, problemsPerDifficulty: 2, samples: 1 },
    log: { samplesPerStep: 0 },
    policy: { workers: 1 },
    selfPlay: { every: 1, proposals: 4, admit: { samples: 2, minPass: 0, maxPass: 1 }, ...selfPlay },
  });
const ladderCold = { checkpoint: 'examples/checkpoints/ladder-cold' };

describe('a frozen self-play generator from a checkpoint', () => {
  it('writes the proposals instead of the student', async () => {
    const ctx = await buildContext(config(tmpdir(), { generator: ladderCold }));
    try {
      const generator = selfPlayOf(ctx)?.generator;
      expect(generator).toBeTruthy();
      expect(generator).not.toBe(ctx.policy);
      const calls = { generator: 0, policy: 0 };
      const spy = <T extends { sample: (...args: never[]) => unknown }>(
        backend: T,
        key: keyof typeof calls,
      ) => {
        const sample = backend.sample.bind(backend);
        backend.sample = ((...args: never[]) => {
          calls[key] += 1;
          return sample(...args);
        }) as T['sample'];
      };
      spy(generator!, 'generator');
      spy(ctx.policy, 'policy');
      const round = await selfPlayRound(selfPlayOf(ctx)!, ctx.policy, new Rng(1), 0, {
        temperature: 1,
        maxTokens: 48,
      });
      expect(calls.generator).toBe(1); // the proposals
      expect(calls.policy).toBeLessThanOrEqual(1); // only the admission measurement, when anything screened
      expect(round.metrics['selfplay/proposed']).toBe(4);
    } finally {
      await ctx.policy.close?.();
      await selfPlayOf(ctx)?.generator?.close?.();
    }
  }, 60_000);

  it('runs in the RL loop', async () => {
    const result = await train(
      config(mkdtempSync(join(tmpdir(), 'selfplay-frozen-')), { generator: ladderCold }),
    );
    expect(deterministicMetrics(result.runDir).map((line) => line['selfplay/proposed'])).toEqual([4, 8]);
  }, 120_000);

  it('refuses a path that is not a checkpoint, and training a frozen generator, before writing a run', async () => {
    const runsDir = mkdtempSync(join(tmpdir(), 'selfplay-bad-'));
    await expect(
      train(config(runsDir, { generator: { checkpoint: join(runsDir, 'absent') } })),
    ).rejects.toThrow(/selfPlay\.generator\.checkpoint: /);
    await expect(train(config(runsDir, { generator: ladderCold, trainGenerator: true }))).rejects.toThrow(
      ConfigError,
    );
    await expect(train(config(runsDir, { generator: ladderCold, trainGenerator: true }))).rejects.toThrow(
      /frozen and cannot be trained/,
    );
    expect(existsSync(runsDir) ? readdirSync(runsDir) : []).toEqual([]);
  }, 60_000);
});
