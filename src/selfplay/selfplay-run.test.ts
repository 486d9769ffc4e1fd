// Self-play in the real RL loop: 3 steps on the embedded demo-cold checkpoint (workers 1) with a
// generator round every step. Whatever the tiny model writes (mostly garbage: it was trained to solve,
// not to propose), every proposal is counted under admitted or a rejection reason and the run never
// fails; a run stopped after 2 steps and resumed logs the same metrics (selfplay/* included) and saves
// the same generated pool as the straight run (train.ts: extra.selfPlay).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { deterministicMetrics, savedExtra, stopAndResume } from '../testing/training/rl/resume-check.ts';
import { rlConfigSchema } from '../training/rl/config.ts';
import { train } from '../training/rl/train.ts';
import { rejectReasons } from './admission.ts';

const config = (runsDir: string, selfPlay: object = {}) =>
  rlConfigSchema.parse({
    name: 'selfplay',
    runsDir,
    seed: 5,
    init: { checkpoint: 'examples/checkpoints/demo-cold' },
    tasks: [{ task: 'addition', difficulties: [2, 3] }],
    poolSize: 8,
    rollout: { groupSize: 2, maxTokens: 48 },
    train: { steps: 3, batchSize: 2, learningRate: 1e-4 },
    eval: { every: 0, problemsPerDifficulty: 2, samples: 1 },
    checkpoint: { latestEvery: 1 },
    log: { samplesPerStep: 0 },
    policy: { workers: 1 },
    selfPlay: {
      every: 1,
      proposals: 6,
      examples: 3,
      admit: { samples: 2, minPass: 0, maxPass: 1 },
      ...selfPlay,
    },
  });

describe('self-play in the RL loop', () => {
  it('counts every proposal, never fails, and resume restores the generated pool exactly', async () => {
    const { straight, resumed } = await stopAndResume(config, 2, 'selfplay');
    const lines = straight.metrics;
    expect(lines.map((line) => line['selfplay/proposed'])).toEqual([6, 12, 18]);
    for (const line of lines) {
      const rejected = rejectReasons.reduce(
        (sum, reason) => sum + Number(line[`selfplay/rejected/${reason}`]),
        0,
      );
      expect(Number(line['selfplay/admitted']) + rejected).toBe(line['selfplay/proposed']);
      expect(line['selfplay/pool_size']).toBe(line['selfplay/admitted']);
    }
    expect(resumed.steps).toBe(3);
    expect(resumed.metrics).toEqual(lines);
    const pool = savedExtra(straight.runDir, 'selfPlay') as {
      entries: unknown[];
      counts: { proposed: number };
    };
    expect(pool.counts.proposed).toBe(18);
    expect(savedExtra(resumed.runDir, 'selfPlay')).toEqual(pool);
  }, 120_000);

  it('trainGenerator: each generator prompt gets a group of groupSize statements, trained with the batch', async () => {
    const result = await train(
      config(mkdtempSync(join(tmpdir(), 'selfplay-gen-')), { proposals: 3, trainGenerator: true }),
      {
        stopAfter: 2,
      },
    );
    const lines = deterministicMetrics(result.runDir);
    expect(lines.map((line) => line['selfplay/proposed'])).toEqual([6, 12]); // 3 prompts × groupSize 2
    expect(lines.map((line) => line['sampling/trained_groups'])).toEqual([5, 5]); // batch 2 + 3 generator groups
    expect(lines.map((line) => line['sampling/groups'])).toEqual([2, 2]); // the solver's groups only
  }, 120_000);
});
