// Resume with ReLIFT: a run stopped after 2 steps (its latest checkpoint then holds a non-empty buffer)
// and resumed to 4 logs exactly the metrics (relift/* included) of the run that went straight to 4, and
// ends with the same saved ReLIFT state — the buffer travels with the checkpoint (train.ts:
// extra.relift). Real steps on the embedded ladder-cold checkpoint (workers 1) at 7 digits, where every
// group fails: 3 items per step, an SFT update of 2 each step, so the buffer holds 1, 2, 3, 4 after steps
// 1-4.
import { describe, expect, it } from 'vitest';
import { savedExtra, stopAndResume } from '../../../testing/training/rl/resume-check.ts';
import { rlConfigSchema } from '../../rl/config.ts';

const config = (runsDir: string) =>
  rlConfigSchema.parse({
    name: 'relift-resume',
    runsDir,
    seed: 3,
    init: { checkpoint: 'examples/checkpoints/ladder-cold' },
    tasks: [{ task: 'addition', difficulties: [7] }],
    poolSize: 3,
    rollout: { groupSize: 3, maxTokens: 80 },
    algorithm: { relift: { enabled: true, sftDataSize: 2 } },
    train: { steps: 4, batchSize: 3, learningRate: 1e-4 },
    eval: { every: 0, problemsPerDifficulty: 1, samples: 1 },
    checkpoint: { latestEvery: 1 },
    log: { samplesPerStep: 0 },
    policy: { workers: 1 },
  });

describe('ReLIFT state across resume', () => {
  it('stop after 2 steps + resume = 4 steps straight (relift metrics and buffer)', async () => {
    let stopped: { buffer: { items: unknown[] }; sftSteps: number } | undefined;
    const { straight, resumed } = await stopAndResume(config, 2, 'relift', (runDir) => {
      stopped = savedExtra(runDir, 'relift') as typeof stopped;
    });
    expect(stopped!.buffer.items).toHaveLength(2);
    expect(stopped!.sftSteps).toBe(2);
    expect(resumed.steps).toBe(4);
    const expected = straight.metrics;
    expect(expected.map((line) => line['relift/buffer_size'])).toEqual([1, 2, 3, 4]);
    expect(expected.map((line) => line['relift/sft_steps'])).toEqual([1, 2, 3, 4]);
    expect(resumed.metrics).toEqual(expected);
    expect(savedExtra(resumed.runDir, 'relift')).toEqual(savedExtra(straight.runDir, 'relift'));
  }, 60_000);
});
