// Resume with `ampo`: a run stopped after 2 steps and resumed to 4 logs exactly the metrics (ampo/* and
// guidance/* included) of the run that went straight to 4, and saves the same scaffold state — the
// scaffold's own random stream (hybrid draws, replaced members, the teachers' sampling seeds) and the
// ledger travel with the checkpoint. Real steps: student ladder-cold on 6-digit addition (its edge: some
// groups fail), teacher demo-cold plus the oracle (workers 1).
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readCheckpoint } from '../runs/checkpoints.ts';
import { rlConfigSchema } from '../training/rl/config.ts';
import { train } from '../training/rl/train.ts';

const config = (runsDir: string) =>
  rlConfigSchema.parse({
    name: 'ampo-resume',
    runsDir,
    seed: 6,
    init: { checkpoint: 'examples/checkpoints/ladder-cold' },
    tasks: [{ task: 'addition', difficulties: [6] }],
    poolSize: 4,
    guidance: { name: 'ampo', options: { injection: 'hybrid', hybridProbability: 0.5, oracle: true } },
    teacher: { pool: [{ name: 'demo', checkpoint: 'examples/checkpoints/demo-cold' }] },
    algorithm: { advantage: { name: 'dr-grpo' } },
    rollout: { groupSize: 4, maxTokens: 96 },
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
          ([key]) =>
            key !== 'time' && !key.startsWith('time/') && !key.startsWith('perf/') && !key.endsWith('_ms'),
        ),
      ),
    );

const savedState = (runDir: string) => readCheckpoint(join(runDir, 'checkpoints'))!.state.extra!.guidance;

describe('ampo state across resume', () => {
  it('stopped after 2 steps and resumed: the same metrics and the same saved state as a straight run', async () => {
    const straight = await train(config(mkdtempSync(join(tmpdir(), 'ampo-straight-'))));
    const first = await train(config(mkdtempSync(join(tmpdir(), 'ampo-resumed-'))), { stopAfter: 2 });
    const resumed = await train(null, { resume: first.runDir });
    expect(resumed.steps).toBe(4);
    const expected = metricsOf(straight.runDir);
    expect(metricsOf(resumed.runDir)).toEqual(expected);
    expect(savedState(resumed.runDir)).toEqual(savedState(straight.runDir));
    // The scaffold acted in the run (so the comparison covers its decisions).
    const helped = expected.reduce((sum, line) => sum + Number(line['ampo/selected'] ?? 0), 0);
    expect(helped).toBeGreaterThan(0);
  }, 60_000);
});
