// One event shape for progress: `onStepEvent` receives, after each step, the object `trainSteps` yields
// ({step, metrics, eval?}, the evaluation when one ran at that step); the older positional
// `onStep(step, metrics)` still works and runs first. And a signal that is already aborted rejects
// `train`, `pretrain` and `trainSteps` with the package's CancelledError (not a bare DOMException), the
// signal's reason as its cause, before any run directory is created.
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  CancelledError,
  CurriculaError,
  checkpoints,
  type EvalSummary,
  type PretrainConfig,
  pretrain,
  RunCancelledError,
  type StepEvent,
  type TrainConfig,
  train,
  trainSteps,
} from '../index.ts';

const config: TrainConfig = {
  seed: 5,
  init: { checkpoint: checkpoints.demoCold },
  tasks: [{ task: 'addition', difficulties: [1] }],
  poolSize: 16,
  rollout: { groupSize: 2, maxTokens: 12 },
  train: { steps: 3, batchSize: 2, learningRate: 1e-4 },
  eval: { every: 2, problemsPerDifficulty: 2, samples: 1 },
  policy: { workers: 1 },
};

const pretrainConfig: PretrainConfig = {
  model: { preset: 'tiny' },
  tasks: [{ task: 'addition', difficulties: [1] }],
  train: { steps: 2, batchSize: 2, learningRate: 1e-3 },
  eval: { every: 1, problemsPerDifficulty: 2 },
  policy: { workers: 1 },
};

/** An event without its metric values, which hold timings. */
const shape = (event: StepEvent) => ({
  step: event.step,
  keys: Object.keys(event.metrics).sort(),
  eval: event.eval === undefined ? undefined : event.eval.overall,
});

describe('onStepEvent', () => {
  it("gets trainSteps' events, with the step's evaluation; the positional onStep runs first", async () => {
    const runsDir = mkdtempSync(join(tmpdir(), 'step-events-'));
    const calls: string[] = [];
    const events: StepEvent[] = [];
    const evaluations = new Map<number, EvalSummary>();
    const positional = new Map<number, Record<string, number>>();
    await train(config, {
      runsDir,
      name: 'callbacks',
      onEval: (step, summary) => evaluations.set(step, summary),
      onStep: (step, metrics) => {
        calls.push(`onStep ${step}`);
        positional.set(step, metrics);
      },
      onStepEvent: async (event) => {
        calls.push(`onStepEvent ${event.step}`);
        events.push(event);
      },
    });
    expect(calls).toEqual([
      'onStep 1',
      'onStepEvent 1',
      'onStep 2',
      'onStepEvent 2',
      'onStep 3',
      'onStepEvent 3',
    ]);
    expect(events.map((event) => event.step)).toEqual([1, 2, 3]);
    for (const event of events) expect(event.metrics).toBe(positional.get(event.step));
    // eval.every 2 of 3 steps: evaluations after steps 2 and 3 (and 0, before training, which is no step).
    expect(events.map((event) => event.eval === undefined)).toEqual([true, false, false]);
    expect(events[1].eval).toBe(evaluations.get(2));
    expect(events[2].eval).toBe(evaluations.get(3));
    expect(events[1].metrics['eval/pass@1']).toBe(events[1].eval?.overall.passAt1);
    expect(Number.isFinite(events[0].metrics['reward/mean'])).toBe(true);

    const yielded: StepEvent[] = [];
    for await (const event of trainSteps(config, { runsDir, name: 'iterated' })) yielded.push(event);
    expect(yielded.map(shape)).toEqual(events.map(shape));
  });

  it('works for pretrain too', async () => {
    const runsDir = mkdtempSync(join(tmpdir(), 'step-events-pretrain-'));
    const events: StepEvent[] = [];
    const steps: number[] = [];
    await pretrain(pretrainConfig, {
      runsDir,
      name: 'cold',
      onStep: (step) => steps.push(step),
      onStepEvent: (event) => events.push(event),
    });
    expect(steps).toEqual([1, 2]);
    expect(events.map((event) => [event.step, event.eval !== undefined])).toEqual([
      [1, true],
      [2, true],
    ]);
    expect(Number.isFinite(events[1].metrics['train/loss'])).toBe(true);
  });
});

describe('a signal that is already aborted', () => {
  it('rejects train, pretrain and trainSteps with CancelledError (cause: the reason), creating nothing', async () => {
    const runsDir = mkdtempSync(join(tmpdir(), 'step-events-aborted-'));
    const reason = new Error('stop before starting');
    const signal = AbortSignal.abort(reason);
    const rejections = [
      await train(config, { runsDir, name: 'never', signal }).catch((error: unknown) => error),
      await pretrain(pretrainConfig, { runsDir, name: 'never', signal }).catch((error: unknown) => error),
      await (async () => {
        for await (const _ of trainSteps(config, { runsDir, name: 'never', signal })) {
          throw new Error('trainSteps yielded a step');
        }
      })().catch((error: unknown) => error),
      // Before validation too: an invalid config is not looked at.
      await train({ bogus: true } as never, { signal }).catch((error: unknown) => error),
    ];
    for (const rejection of rejections) {
      expect(rejection).toBeInstanceOf(CancelledError);
      expect(rejection).toBeInstanceOf(CurriculaError);
      expect(rejection).not.toBeInstanceOf(RunCancelledError);
      expect((rejection as CancelledError).name).toBe('AbortError');
      expect((rejection as CancelledError).cause).toBe(reason);
      expect((rejection as CancelledError).message).toBe(
        'cancelled before the run started: the signal was already aborted; nothing was created',
      );
    }
    expect(existsSync(join(runsDir, 'never'))).toBe(false);
    // The default reason (AbortSignal.abort() with none) is the DOMException it used to reject with.
    const bare = await train(config, { runsDir, signal: AbortSignal.abort() }).catch(
      (error: unknown) => error,
    );
    expect(bare).toBeInstanceOf(CancelledError);
    expect((bare as CancelledError).cause).toMatchObject({ name: 'AbortError' });
  });
});
