// Resume with retry and rubric-scaffold: a run stopped after 2 steps and resumed to 4 logs exactly the
// metrics (guidance/* included) of the run that went straight to 4, and saves the same scaffold state —
// rubric-scaffold's own random stream (criteria choice) and retry's counters travel with the checkpoint.
// Real steps on examples/checkpoints/demo-cold (workers 1).
import { describe, expect, it } from 'vitest';
import { savedExtra, stopAndResume as stopAndResumeRun } from '../testing/training/rl/resume-check.ts';
import { rlConfigSchema } from '../training/rl/config.ts';

const config = (runsDir: string, guidance: object) =>
  rlConfigSchema.parse({
    name: 'resume',
    runsDir,
    seed: 5,
    init: { checkpoint: 'examples/checkpoints/demo-cold' },
    tasks: [{ task: 'addition', difficulties: [2] }],
    poolSize: 4,
    guidance,
    rollout: { groupSize: 4, maxTokens: 40 },
    train: { steps: 4, batchSize: 4, learningRate: 1e-4 },
    eval: { every: 0, problemsPerDifficulty: 1, samples: 1 },
    checkpoint: { latestEvery: 1 },
    log: { samplesPerStep: 0 },
    policy: { workers: 1 },
  });

async function stopAndResume(guidance: object) {
  const { straight, resumed } = await stopAndResumeRun((runsDir) => config(runsDir, guidance), 2, 'scaffold');
  expect(resumed.steps).toBe(4);
  expect(resumed.metrics).toEqual(straight.metrics);
  expect(savedExtra(resumed.runDir, 'guidance')).toEqual(savedExtra(straight.runDir, 'guidance'));
  return straight.metrics;
}

describe('retry and rubric-scaffold state across resume', () => {
  it('rubric-scaffold (criteria drawn from its own stream)', async () => {
    const metrics = await stopAndResume({ name: 'rubric-scaffold', options: { rule: 'step_linear' } });
    expect(metrics.map((line) => line['guidance/rubric_decay'])).toEqual([1, 2 / 3, 1 / 3, 0]);
  }, 60_000);

  it('retry (any failure, the failed answer line after the problem)', async () => {
    const options = { template: '{prompt}{attempt}\n', trigger: 'any-failure', shown: 'last-line' };
    const metrics = await stopAndResume({ name: 'retry', options });
    expect(metrics.some((line) => (line['guidance/retry_frac'] as number) > 0)).toBe(true);
  }, 60_000);
});
