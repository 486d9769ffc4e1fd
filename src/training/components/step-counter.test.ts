// A toy run component (src/testing/training/rl/step-counter-component.ts) joins a real run through a run
// kind: its metric is logged every step, its state is saved in the checkpoint under its id and comes back
// on resume, so a run stopped after 2 steps and resumed to 4 logs the counts of the straight run.
import { describe, expect, it } from 'vitest';
import { savedExtra, stopAndResume } from '../../testing/training/rl/resume-check.ts';
import { stepCounterComponent } from '../../testing/training/rl/step-counter-component.ts';
import { rlConfigSchema } from '../rl/config.ts';
import { buildContext } from '../rl/setup.ts';
import { trainRunKind } from '../rl/train.ts';
import { rlComponents } from './index.ts';

const config = (runsDir: string) =>
  rlConfigSchema.parse({
    name: 'step-counter',
    runsDir,
    seed: 3,
    init: { checkpoint: 'examples/checkpoints/ladder-cold' },
    tasks: [{ task: 'addition', difficulties: [2] }],
    poolSize: 4,
    rollout: { groupSize: 2, maxTokens: 16 },
    train: { steps: 4, batchSize: 2, learningRate: 1e-4 },
    eval: { every: 0, problemsPerDifficulty: 1, samples: 1 },
    checkpoint: { latestEvery: 1 },
    log: { samplesPerStep: 0 },
    policy: { workers: 1 },
  });

const kind = {
  ...trainRunKind,
  build: (runConfig: ReturnType<typeof config>, modelPath?: string) =>
    buildContext(runConfig, modelPath, [...rlComponents, stepCounterComponent]),
};

describe('a toy run component', () => {
  it('logs its metric every step and keeps its state across resume', async () => {
    let stopped: unknown;
    const { straight, resumed } = await stopAndResume(
      config,
      2,
      'step-counter',
      (runDir) => {
        stopped = savedExtra(runDir, 'stepCounter');
      },
      { kind },
    );
    expect(stopped).toEqual({ steps: 2, groups: 4 });
    expect(straight.metrics.map((line) => line['toy/steps_seen'])).toEqual([1, 2, 3, 4]);
    expect(straight.metrics.map((line) => line['toy/groups_seen'])).toEqual([2, 4, 6, 8]);
    expect(resumed.metrics).toEqual(straight.metrics);
    expect(savedExtra(resumed.runDir, 'stepCounter')).toEqual({ steps: 4, groups: 8 });
  }, 60_000);
});
