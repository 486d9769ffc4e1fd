// The run driver's loop on a fake run: evaluation and checkpoint cadence, stopAfter, and cancellation
// (a checkpoint only when the step is not saved yet, a `cancelled` event, RunCancelledError).
import { describe, expect, it } from 'vitest';
import { RunCancelledError } from '../core/errors.ts';
import type { EvalSummary } from '../eval/aggregate.ts';
import { runSteps, type StepLoop } from './run-driver.ts';

function fakeLoop(overrides: Partial<StepLoop> = {}) {
  const log: string[] = [];
  const summary = (step: number) => ({ metrics: { 'eval/step': step } }) as unknown as EvalSummary;
  const loop: StepLoop = {
    store: {
      dir: '/runs/fake',
      event: (kind, detail) => log.push(`event ${kind} ${JSON.stringify(detail)}`),
    },
    startStep: 0,
    savedStep: 0,
    steps: 5,
    evalEvery: 2,
    checkpoint: { every: 0, latestEvery: 3 },
    step: async (step) => ({ 'train/step': step }),
    evaluate: async (step) => summary(step),
    record: (step, metrics) => log.push(`record ${step} ${Object.keys(metrics).join(',')}`),
    save: async (step, evaluated) => void log.push(`save ${step}${evaluated ? ' evaluated' : ''}`),
    ...overrides,
  };
  return { loop, log };
}

describe('runSteps', () => {
  it('evaluates every eval.every steps and at the end, saves on eval, latestEvery and the end', async () => {
    const { loop, log } = fakeLoop();
    const result = await runSteps(loop);
    expect(result.step).toBe(5);
    expect(result.finalEval.metrics).toEqual({ 'eval/step': 5 });
    expect(log).toEqual([
      'record 1 train/step',
      'record 2 train/step,eval/step',
      'save 2 evaluated',
      'record 3 train/step',
      'save 3',
      'record 4 train/step,eval/step',
      'save 4 evaluated',
      'record 5 train/step,eval/step',
      'save 5 evaluated',
      'event finished {"step":5}',
    ]);
  });

  it('stopAfter leaves the run unfinished and evaluates where it stopped', async () => {
    const { loop, log } = fakeLoop({ stopAfter: 1 });
    const result = await runSteps(loop);
    expect(result.step).toBe(1);
    expect(result.finalEval.metrics).toEqual({ 'eval/step': 1 });
    expect(log).toEqual(['record 1 train/step']);
  });

  it('cancelled: saves the unsaved step, records the event and throws RunCancelledError', async () => {
    const controller = new AbortController();
    const { loop, log } = fakeLoop({
      signal: controller.signal,
      record: (step) => {
        log.push(`record ${step}`);
        controller.abort();
      },
    });
    const error = await runSteps(loop).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RunCancelledError);
    expect((error as RunCancelledError).step).toBe(1);
    expect(log).toEqual(['record 1', 'save 1', 'event cancelled {"step":1}']);
  });

  it('cancelled on a saved step: no second checkpoint', async () => {
    const controller = new AbortController();
    controller.abort();
    const { loop, log } = fakeLoop({ signal: controller.signal, startStep: 2, savedStep: 2 });
    await expect(runSteps(loop)).rejects.toBeInstanceOf(RunCancelledError);
    expect(log).toEqual(['event cancelled {"step":2}']);
  });
});
