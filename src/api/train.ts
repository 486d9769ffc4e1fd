// `train` and `pretrain` for scripts: the same config objects as the YAML files (validated by the same
// schemas, every invalid field listed in one ConfigError), progress through callbacks (onStep, onEval,
// onAdvice), an async-iterator form (`trainSteps`), and cancellation with an AbortSignal. The loops are
// src/training/rl/train.ts and src/training/pretrain.ts, the ones `curricula train` and `pretrain` run.
//
// Cancellation: when `signal` aborts, the run finishes the step in progress, saves a checkpoint, logs a
// 'cancelled' event and the promise REJECTS with RunCancelledError (name 'AbortError', with `runDir` and
// `step`); `train(null, {resume: error.runDir})` continues it. A signal already aborted rejects at once,
// before anything is created (not even the config is validated), with CancelledError (RunCancelledError's
// base class, also named 'AbortError'; the signal's reason is its `cause`).
//
// Progress: `onStepEvent` receives the object `trainSteps` yields ({step, metrics, eval?}); the older
// positional `onStep(step, metrics)` still works and runs first when both are given.
import type { z } from 'zod';
import { parseConfig } from '../core/config.ts';
import { CancelledError } from '../core/errors.ts';
import type { EvalSummary } from '../eval/aggregate.ts';
import { type PretrainResult, pretrain as pretrainLoop } from '../training/pretrain.ts';
import { pretrainConfigSchema } from '../training/pretrain-config.ts';
import { rlConfigSchema } from '../training/rl/config.ts';
import { type TrainResult, train as trainLoop } from '../training/rl/train.ts';
import type { PretrainConfig, TrainConfig } from './config.ts';

export type { EvalSummary } from '../eval/aggregate.ts';
export type { PretrainResult } from '../training/pretrain.ts';
export type { TrainResult } from '../training/rl/train.ts';

/** Options of a run started from a script (all optional). */
export interface RunOptions {
  /** Overrides the config's `runsDir` (the run directory is `<runsDir>/<name>`). */
  runsDir?: string;
  /** Overrides the config's `name`. */
  name?: string;
  /** Continue this run directory from its latest checkpoint with its stored config (config may be null). */
  resume?: string;
  /** With `resume`: the run's new total number of steps. */
  steps?: number;
  /** Replace an existing run of the same name (only a run, and not one in use). */
  overwrite?: boolean;
  /**
   * Stops the run after the step in progress (checkpoint saved); the promise rejects with
   * RunCancelledError. Already aborted: rejects with CancelledError before anything is created.
   */
  signal?: AbortSignal;
  /**
   * After each step, the same event `trainSteps` yields: the step, its metrics (reward/mean,
   * losses/policy, perf/step_seconds, …) and, when a held-out evaluation ran at that step, its summary.
   * For `train`, a returned promise is awaited before the next step starts.
   */
  onStepEvent?: (event: StepEvent) => unknown;
  /**
   * After each step, with that step's number and metrics (as `onStepEvent`'s `step` and `metrics`).
   * @deprecated Use `onStepEvent`, which receives the object `trainSteps` yields. Still called, before
   * `onStepEvent` when both are given.
   */
  onStep?: (step: number, metrics: Record<string, number>) => unknown;
  /** After each held-out evaluation (step 0 = before training). */
  onEval?: (step: number, summary: EvalSummary) => void;
  /** Told what `overwrite` removes. */
  onOverwrite?: (message: string) => void;
}

/** Options of `train` (RL). */
export interface TrainRunOptions extends RunOptions {
  /** Advice about a new run's settings (valid, but likely not what was meant). */
  onAdvice?: (message: string) => void;
}

/** The config with the runsDir/name overrides of `options`, validated (every invalid field listed). */
function resolveConfig<Schema extends z.ZodType>(
  schema: Schema,
  config: object | null | undefined,
  options: RunOptions,
  source: string,
): z.output<Schema> | null {
  if (config === null || config === undefined) return null;
  const merged = {
    ...config,
    ...(options.runsDir !== undefined ? { runsDir: options.runsDir } : {}),
    ...(options.name !== undefined ? { name: options.name } : {}),
  };
  return parseConfig(schema, merged, source);
}

/**
 * RL fine-tuning (`curricula train`): validates `config` (a train config, as the YAML), runs the loop and
 * resolves with the run directory, step count and held-out evaluations. Pass `null` with `options.resume`
 * to continue a run.
 */
export async function train(config: TrainConfig | null, options: TrainRunOptions = {}): Promise<TrainResult> {
  rejectIfAborted(options.signal);
  const resolved = resolveConfig(rlConfigSchema, config, options, 'train config');
  return trainLoop(resolved, { ...loopOptions(options), onAdvice: options.onAdvice });
}

/**
 * Supervised cold start (`curricula pretrain`): next-token training on worked solutions. Pass `null`
 * with `options.resume` to continue a run.
 */
export async function pretrain(
  config: PretrainConfig | null,
  options: RunOptions = {},
): Promise<PretrainResult> {
  rejectIfAborted(options.signal);
  const resolved = resolveConfig(pretrainConfigSchema, config, options, 'pretrain config');
  return pretrainLoop(resolved, loopOptions(options));
}

/** A signal aborted before the run starts: CancelledError, with the signal's reason as its cause. */
function rejectIfAborted(signal: AbortSignal | undefined): void {
  if (!signal?.aborted) return;
  throw new CancelledError(
    'cancelled before the run started: the signal was already aborted; nothing was created',
    {
      cause: signal.reason,
    },
  );
}

/** The options both loops share, as the API takes them (onStep and onStepEvent as the loop's one onStep). */
function loopOptions(options: RunOptions) {
  const { resume, steps, overwrite, signal, onOverwrite } = options;
  return { resume, steps, overwrite, signal, onOverwrite, ...stepCallbacks(options) };
}

/**
 * The loop's onStep and onEval for a run's callbacks: the positional onStep, then onStepEvent with the
 * step's event (the loop calls onEval before onStep for the same step, so the event carries that
 * evaluation). A promise returned by either is returned for the loop to await (train awaits it).
 */
function stepCallbacks({ onStep, onStepEvent, onEval }: RunOptions): Pick<RunOptions, 'onStep' | 'onEval'> {
  if (onStepEvent === undefined) return { onStep, onEval };
  let evalAt: { step: number; summary: EvalSummary } | null = null;
  return {
    onEval: (step, summary) => {
      evalAt = { step, summary };
      onEval?.(step, summary);
    },
    onStep: (step, metrics) => {
      const summary = evalAt?.step === step ? evalAt.summary : undefined;
      const event: StepEvent = summary ? { step, metrics, eval: summary } : { step, metrics };
      const positional = onStep?.(step, metrics);
      return isPromiseLike(positional) ? positional.then(() => onStepEvent(event)) : onStepEvent(event);
    },
  };
}

function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as PromiseLike<unknown> | null)?.then === 'function';
}

/** One step of a run, as `trainSteps` yields it. */
export interface StepEvent {
  step: number;
  /** The step's metrics (with the held-out evaluation's when one ran at this step). */
  metrics: Record<string, number>;
  /** The held-out evaluation of this step, when one ran. */
  eval?: EvalSummary;
}

/**
 * `train` as an async iterator: yields each step's metrics as it is logged and returns the TrainResult
 * (the value of the final `next()`). The run waits after each step until the loop asks for the next one;
 * breaking out of the loop cancels the run right there (a checkpoint of the last yielded step is saved
 * and the run is resumable), and the iterator then ends quietly.
 * Errors of the run (a bad config, a cancelled `options.signal`) are thrown from the loop.
 */
export async function* trainSteps(
  config: TrainConfig | null,
  options: TrainRunOptions = {},
): AsyncGenerator<StepEvent, TrainResult | undefined, undefined> {
  const stop = new AbortController();
  const external = options.signal;
  const forward = () => stop.abort(external?.reason);
  if (external?.aborted) forward();
  external?.addEventListener('abort', forward, { once: true });
  const queue: StepEvent[] = [];
  let wake: (() => void) | null = null;
  // Backpressure: the run waits after each step until the consumer asks for the next one.
  let release: (() => void) | null = null;
  const releaseRun = () => {
    release?.();
    release = null;
  };
  const notify = () => {
    wake?.();
    wake = null;
  };
  let finished = false;
  let failure: unknown = null;
  let result: TrainResult | undefined;
  const run = train(config, {
    ...options,
    signal: stop.signal,
    onStepEvent: async (event) => {
      queue.push(event);
      await options.onStepEvent?.(event);
      const consumed = new Promise<void>((resolve) => {
        release = resolve;
      });
      notify();
      await consumed;
    },
  }).then(
    (value) => {
      result = value;
    },
    (error) => {
      failure = error;
    },
  );
  void run.finally(() => {
    finished = true;
    notify();
  });
  let completed = false;
  try {
    while (true) {
      if (queue.length > 0) {
        yield queue.shift()!;
        releaseRun();
        continue;
      }
      if (finished) break;
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
    }
    completed = true;
  } finally {
    external?.removeEventListener('abort', forward);
    if (!completed) {
      // The consumer stopped early: cancel the run (it stops before the next step) and wait for its checkpoint.
      stop.abort(new Error('trainSteps: the consumer stopped'));
      releaseRun();
      await run;
    }
  }
  if (failure !== null) throw failure;
  return result;
}
