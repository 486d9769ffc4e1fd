// The run lifecycle shared by `curricula pretrain` and `curricula train` (and `teach`, a run kind of
// train): the step loop with its held-out evaluation and checkpoint cadence, cancellation and the end of
// the run; and the resume point with its fallback notice. Each command brings its step function, its
// evaluation and its checkpoint; opening the run store and closing what it built stay with the command.
//
// Cancellation: the loop checks the signal before each step; an aborted run saves a checkpoint unless the
// step it stopped at is already saved, records `cancelled` and throws RunCancelledError (resumable).
import { RunCancelledError } from '../core/errors.ts';
import type { EvalSummary } from '../eval/aggregate.ts';
import { type CheckpointRef, resumeCheckpoint } from '../runs/checkpoints.ts';
import type { RunStore } from '../runs/run-store.ts';

export interface StepLoop {
  store: Pick<RunStore, 'dir' | 'event'>;
  /** The step the run stands at (0 for a new run, the checkpoint's step on resume). */
  startStep: number;
  /** The step already in a checkpoint (a cancel there saves nothing new); -1 = none. */
  savedStep: number;
  /** The run's total steps. */
  steps: number;
  /** Stop after this many steps in this process (tests of resume); the run stays resumable. */
  stopAfter?: number;
  signal?: AbortSignal;
  /** eval.every (0 = only after the last step) and the checkpoint block. */
  evalEvery: number;
  checkpoint: { every: number; latestEvery: number };
  /** Runs one step; returns its metrics (the evaluation's are added when one is due). */
  step(step: number): Promise<Record<string, number>>;
  evaluate(step: number): Promise<EvalSummary>;
  onEval?(step: number, summary: EvalSummary): void;
  /** Logs a finished step (metrics with the evaluation's) and tells the caller; awaited. */
  record(step: number, metrics: Record<string, number>): Promise<unknown> | unknown;
  /** Saves a checkpoint at `step`; `summary`: the evaluation of this step, when there was one. */
  save(step: number, summary?: EvalSummary): Promise<void>;
}

/** The loop: steps until the end (or stopAfter), evaluating and saving on cadence; then the final evaluation. */
export async function runSteps(loop: StepLoop): Promise<{ step: number; finalEval: EvalSummary }> {
  let step = loop.startStep;
  let savedStep = loop.savedStep;
  let ranHere = 0;
  let lastEval: EvalSummary | undefined;
  const { every, latestEvery } = loop.checkpoint;
  while (step < loop.steps) {
    if (loop.stopAfter !== undefined && ranHere >= loop.stopAfter) break;
    if (loop.signal?.aborted) {
      if (savedStep !== step) await loop.save(step);
      loop.store.event('cancelled', { step });
      throw new RunCancelledError(loop.store.dir, step);
    }
    step++;
    ranHere++;
    const metrics = await loop.step(step);
    const evalDue = (loop.evalEvery > 0 && step % loop.evalEvery === 0) || step === loop.steps;
    let summary: EvalSummary | undefined;
    if (evalDue) {
      summary = await loop.evaluate(step);
      lastEval = summary;
      Object.assign(metrics, summary.metrics);
      loop.onEval?.(step, summary);
    }
    await loop.record(step, metrics);
    if (evalDue || step % latestEvery === 0 || (every > 0 && step % every === 0)) {
      await loop.save(step, summary);
      savedStep = step;
    }
  }
  const finalEval = lastEval ?? (await loop.evaluate(step));
  if (step >= loop.steps) loop.store.event('finished', { step });
  return { step, finalEval };
}

/**
 * The checkpoint a resume continues from: LATEST's, or the newest intact one when LATEST is missing or
 * damaged (then a `checkpoint-fallback` event and `onWarning`, default a `warning: …` line on stderr).
 */
export function resumePoint(
  store: Pick<RunStore, 'checkpointsDir' | 'event'>,
  onWarning?: (message: string) => void,
): CheckpointRef | null {
  const { checkpoint, notice } = resumeCheckpoint(store.checkpointsDir);
  if (notice) {
    store.event('checkpoint-fallback', { message: notice, checkpoint: checkpoint?.name });
    (onWarning ?? ((message) => console.error(`warning: ${message}`)))(notice);
  }
  return checkpoint;
}
