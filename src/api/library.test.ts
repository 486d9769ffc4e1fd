// The public API used as a script uses it (src/index.ts, the `curricula` entry): register the example
// task and reward (examples/library/plugins.ts, the ones docs/library.md shows), run three RL steps on the
// shipped demo checkpoint through `train`, and read the metrics and samples back with `openRun`. Also:
// an AbortSignal cancels a run after the step in progress and the run resumes to the same end.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Reward } from '../core/reward.ts';
import {
  checkpoints,
  openRun,
  type PretrainConfig,
  pretrain,
  RunCancelledError,
  registerReward,
  registerTask,
  type TrainConfig,
  train,
  trainSteps,
} from '../index.ts';
import type { Task } from '../tasks/task.ts';
import { checkReward, checkTask } from './testing.ts';

// Loaded by URL so that the root type-check does not resolve its `curricula/*` imports (types only;
// src/api/library-examples.test.ts type-checks it against the package's entry points).
const plugins = new URL('../../examples/library/plugins.ts', import.meta.url).href;

function config(steps: number): TrainConfig {
  return {
    seed: 3,
    init: { checkpoint: checkpoints.demoCold },
    tasks: [{ task: 'doubling', difficulties: [1, 2] }],
    poolSize: 16,
    reward: { name: 'partial-credit' },
    rollout: { groupSize: 4, maxTokens: 20 },
    train: { steps, batchSize: 3, learningRate: 1e-4 },
    eval: { every: 0, problemsPerDifficulty: 2, samples: 1 },
    checkpoint: { latestEvery: 5 },
    log: { samplesPerStep: 4 },
    policy: { workers: 1 },
  };
}

/** reward/mean and losses/policy of the uninterrupted 3-step run, by step (filled by the first test). */
const uninterrupted: number[][] = [];
const compared = (run: ReturnType<typeof openRun>) =>
  [1, 2, 3].map((step) =>
    ['reward/mean', 'losses/policy'].map(
      (key) => run.metrics({ key, since: step }).find((row) => row.step === step)?.value ?? Number.NaN,
    ),
  );

beforeAll(async () => {
  const { doubling, partialCredit } = (await import(plugins)) as { doubling: Task; partialCredit: Reward };
  expect(checkTask(doubling).subject).toBe("task 'doubling'");
  expect((await checkReward(partialCredit)).subject).toBe("reward 'partial-credit'");
  registerTask('doubling', doubling);
  registerReward('partial-credit', partialCredit);
});

describe('train from a script with a registered task and reward', () => {
  it('runs three RL steps on the shipped checkpoint and reads the metrics back with openRun', async () => {
    const runsDir = mkdtempSync(join(tmpdir(), 'library-'));
    const seen = new Map<number, Record<string, number>>();
    const result = await train(config(3), {
      runsDir,
      name: 'ext',
      onStep: (step, metrics) => seen.set(step, metrics),
    });
    expect(result.steps).toBe(3);
    expect(result.runDir).toBe(join(runsDir, 'ext'));
    expect([...seen.keys()]).toEqual([1, 2, 3]);
    const run = openRun(result.runDir);
    try {
      expect(run.config<{ reward: { name: string } }>().reward.name).toBe('partial-credit');
      const rewardMean = run.metrics({ key: 'reward/mean' });
      expect(rewardMean.map((row) => row.step)).toEqual([1, 2, 3]);
      expect(rewardMean.map((row) => row.value)).toEqual(
        [1, 2, 3].map((step) => seen.get(step)!['reward/mean']),
      );
      // The reward's own components are logged under reward/<name>.
      expect(run.metricKeys()).toEqual(expect.arrayContaining(['reward/answered', 'reward/correct']));
      expect(run.metrics({ since: 2 }).every((row) => row.step >= 2)).toBe(true);
      expect(run.metrics({ since: 2 }).length).toBe(run.metrics().filter((row) => row.step >= 2).length);
      const samples = run.samples({ step: 2 });
      expect(samples).toHaveLength(4);
      for (const sample of samples) {
        expect(sample.step).toBe(2);
        expect(sample.problemId).toMatch(/^doubling-[12]-\d+$/);
        expect(sample.prompt).toMatch(/^\d+\*2\n$/);
        expect([0, 0.1, 1]).toContain(sample.reward);
      }
      expect(
        run.samples({ where: (sample) => sample.reward === 1 }).every((sample) => sample.reason === null),
      ).toBe(true);
      expect(run.samples({ limit: 5 })).toHaveLength(5);
      expect(run.checkpoints().at(-1)).toMatchObject({ step: 3, latest: true });
      expect(run.events().map((event) => event.kind)).toContain('finished');
      uninterrupted.push(...compared(run));
    } finally {
      run.close();
    }
  });

  it('an AbortSignal stops the run after the step in progress; the run resumes to the end', async () => {
    const runsDir = mkdtempSync(join(tmpdir(), 'library-cancel-'));
    const controller = new AbortController();
    const steps: number[] = [];
    const cancelled = await train(config(3), {
      runsDir,
      name: 'cancel',
      signal: controller.signal,
      onStep: (step) => {
        steps.push(step);
        controller.abort();
      },
    }).catch((error: unknown) => error);
    expect(cancelled).toBeInstanceOf(RunCancelledError);
    expect((cancelled as RunCancelledError).name).toBe('AbortError');
    expect((cancelled as RunCancelledError).step).toBe(1);
    expect(steps).toEqual([1]);
    const runDir = (cancelled as RunCancelledError).runDir;
    let run = openRun(runDir);
    expect(run.checkpoints().find((checkpoint) => checkpoint.latest)?.step).toBe(1);
    expect(run.events().at(-1)?.kind).toBe('cancelled');
    run.close();

    const resumed = await train(null, { resume: runDir, onStep: (step) => steps.push(step) });
    expect(resumed.steps).toBe(3);
    expect(steps).toEqual([1, 2, 3]);
    run = openRun(runDir);
    expect(run.metrics({ key: 'reward/mean' }).map((row) => row.step)).toEqual([1, 2, 3]);
    expect(run.events().map((event) => event.kind)).toEqual(
      expect.arrayContaining(['cancelled', 'resumed', 'finished']),
    );
    // Same seed, same steps: the resumed run continues exactly where the uninterrupted one went.
    expect(uninterrupted.flat().every(Number.isFinite)).toBe(true);
    expect(compared(run)).toEqual(uninterrupted);
    run.close();

    const aborted = AbortSignal.abort();
    await expect(train(config(3), { runsDir, name: 'never', signal: aborted })).rejects.toThrow();
    expect(() => openRun(join(runsDir, 'never'))).toThrow('does not exist');
  });
});

describe('trainSteps and pretrain', () => {
  it('trainSteps yields each step; leaving the loop cancels the run after that step, resumable', async () => {
    const runsDir = mkdtempSync(join(tmpdir(), 'library-steps-'));
    const seen: number[] = [];
    const iterator = trainSteps(config(3), { runsDir, name: 'steps' });
    for await (const event of iterator) {
      seen.push(event.step);
      expect(Number.isFinite(event.metrics['reward/mean'])).toBe(true);
      break;
    }
    expect(seen).toEqual([1]);
    const run = openRun(join(runsDir, 'steps'));
    expect(run.checkpoints().find((checkpoint) => checkpoint.latest)?.step).toBe(1);
    expect(run.events().at(-1)?.kind).toBe('cancelled');
    run.close();
    const rest: number[] = [];
    let final: unknown;
    const resumed = trainSteps(null, { resume: join(runsDir, 'steps') });
    while (true) {
      const next = await resumed.next();
      if (next.done) {
        final = next.value;
        break;
      }
      rest.push(next.value.step);
    }
    expect(rest).toEqual([2, 3]);
    expect(final).toMatchObject({ steps: 3 });
  });

  it('pretrain takes the same signal: cancelled after a step, resumed to the end', async () => {
    const runsDir = mkdtempSync(join(tmpdir(), 'library-pretrain-'));
    const controller = new AbortController();
    const pretrainConfig: PretrainConfig = {
      model: { preset: 'tiny' },
      tasks: [{ task: 'addition', difficulties: [1] }],
      train: { steps: 3, batchSize: 4, learningRate: 1e-3 },
      eval: { every: 0, problemsPerDifficulty: 2 },
      policy: { workers: 1 },
    };
    const error = await pretrain(pretrainConfig, {
      runsDir,
      name: 'cold',
      signal: controller.signal,
      onStep: (step) => step === 2 && controller.abort(),
    }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RunCancelledError);
    expect((error as RunCancelledError).step).toBe(2);
    const resumed = await pretrain(null, { resume: (error as RunCancelledError).runDir });
    expect(resumed.steps).toBe(3);
    const run = openRun(resumed.runDir);
    expect(run.metrics({ key: 'train/loss' }).map((row) => row.step)).toEqual([1, 2, 3]);
    run.close();
  });
});
