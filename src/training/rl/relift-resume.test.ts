// Resume with ReLIFT: a run stopped after 2 steps (its latest checkpoint then holds a non-empty buffer)
// and resumed to 4 logs exactly the metrics (relift/* included) of the run that went straight to 4, and
// ends with the same saved ReLIFT state — the buffer travels with the checkpoint (train.ts:
// extra.relift). Real steps on the embedded ladder-cold checkpoint (workers 1) at 7 digits, where every
// group fails: 3 items per step, an SFT update of 2 each step, so the buffer holds 1, 2, 3, 4 after steps
// 1-4.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readCheckpoint } from '../../runs/checkpoints.ts';
import { rlConfigSchema } from './config.ts';
import { train } from './train.ts';

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

const metricsOf = (runDir: string) =>
  readFileSync(join(runDir, 'metrics.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line))
    .filter((line) => line.step > 0)
    .map((line) =>
      Object.fromEntries(
        Object.entries(line).filter(
          ([key]) => key !== 'time' && !key.startsWith('time/') && !key.startsWith('perf/'),
        ),
      ),
    );

const savedState = (runDir: string) => readCheckpoint(join(runDir, 'checkpoints'))!.state.extra!.relift;

describe('ReLIFT state across resume', () => {
  it('stop after 2 steps + resume = 4 steps straight (relift metrics and buffer)', async () => {
    const straight = await train(config(mkdtempSync(join(tmpdir(), 'relift-straight-'))));
    const dir = mkdtempSync(join(tmpdir(), 'relift-resumed-'));
    const first = await train(config(dir), { stopAfter: 2 });
    const stopped = savedState(first.runDir) as { buffer: { items: unknown[] }; sftSteps: number };
    expect(stopped.buffer.items).toHaveLength(2);
    expect(stopped.sftSteps).toBe(2);
    const resumed = await train(null, { resume: first.runDir });
    expect(resumed.steps).toBe(4);
    const expected = metricsOf(straight.runDir);
    expect(expected.map((line) => line['relift/buffer_size'])).toEqual([1, 2, 3, 4]);
    expect(expected.map((line) => line['relift/sft_steps'])).toEqual([1, 2, 3, 4]);
    expect(metricsOf(resumed.runDir)).toEqual(expected);
    expect(savedState(resumed.runDir)).toEqual(savedState(straight.runDir));
  }, 60_000);
});
