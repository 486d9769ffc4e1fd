// Resume with ReMix: a run stopped after 2 steps (its latest checkpoint then holds step 2's groups in the
// replay buffer) and resumed to 4 logs exactly the metrics of the run that went straight to 4 (the
// replayed groups' losses included) and ends with the same buffer — it travels with the checkpoint
// (train.ts: extra.remix). Real steps on demo-cold, workers 1.
import { describe, expect, it } from 'vitest';
import { savedExtra, stopAndResume } from '../../../testing/training/rl/resume-check.ts';
import { rlConfigSchema } from '../../rl/config.ts';

const config = (runsDir: string) =>
  rlConfigSchema.parse({
    name: 'remix-resume',
    runsDir,
    seed: 7,
    init: { checkpoint: 'examples/checkpoints/demo-cold' },
    tasks: [{ task: 'addition', difficulties: [2] }],
    poolSize: 6,
    rollout: { groupSize: 4, maxTokens: 24 },
    algorithm: { remix: { history: 2 }, minibatches: 2 },
    train: { steps: 4, batchSize: 2, learningRate: 3e-3 },
    eval: { every: 0, problemsPerDifficulty: 1, samples: 1 },
    checkpoint: { latestEvery: 1 },
    log: { samplesPerStep: 0 },
    policy: { workers: 1 },
  });

describe('ReMix replay buffer across resume', () => {
  it('stop after 2 steps + resume = 4 steps straight (metrics and buffer)', async () => {
    let stopped: unknown[] | undefined;
    const { straight, resumed } = await stopAndResume(config, 2, 'remix', (runDir) => {
      stopped = savedExtra(runDir, 'remix') as unknown[];
    });
    expect(stopped).toHaveLength(4); // steps 1 and 2, two groups each (history 2)
    expect(resumed.steps).toBe(4);
    expect(straight.metrics.map((line) => line['remix/replayed_groups'])).toEqual([0, 2, 4, 4]);
    expect(resumed.metrics).toEqual(straight.metrics);
    expect(savedExtra(resumed.runDir, 'remix')).toEqual(savedExtra(straight.runDir, 'remix'));
  }, 240_000);
});
