// `curricula train`: the RL loop around rlStep — run store, held-out evaluation every N steps, checkpoints
// (model, optimizer, selector, guidance and RNG state), and crash-safe resume: after a kill -9 the run
// restarts from its latest checkpoint, forgets the logged steps after it and replays them; with the same
// seed the replayed steps give the same metrics as an uninterrupted run.
import { dirname, join } from 'node:path';
import { ConfigError } from '../../core/errors.ts';
import { Rng } from '../../core/rng.ts';
import type { EvalSummary } from '../../eval/aggregate.ts';
import { summarizeOutcomes } from '../../eval/aggregate.ts';
import { sampleAndVerify } from '../../eval/evaluate.ts';
import { defaultEngine } from '../../policy/default-engine.ts';
import { pinWorkerCount } from '../../policy/parallel-options.ts';
import { type CheckpointRef, saveCheckpoint } from '../../runs/checkpoints.ts';
import { checkRunsDirectory, runDirectory } from '../../runs/run-name.ts';
import { RunStore } from '../../runs/run-store.ts';
import { heldOutProblems } from '../../tasks/problem-mix.ts';
import { recordKernels } from '../kernels-event.ts';
import { type ResumedConfig, type ResumeRequest, recordNewSteps, resumedRlConfig } from '../resume.ts';
import { resumePoint, runSteps } from '../run-driver.ts';
import { learningRateAt } from '../schedule.ts';
import { runAdvice } from './advice.ts';
import {
  closeComponents,
  componentStates,
  loadComponents,
  saveComponentModels,
} from './component-lifecycle.ts';
import { type RlConfig, rlConfigSchema } from './config.ts';
import type { RlContext } from './context.ts';
import { checkPoolUnchanged } from './pool-file.ts';
import { sampleRecords } from './sample-records.ts';
import { buildContext, validateRlConfig } from './setup.ts';
import { rlStep, type StepReport } from './step.ts';

/**
 * What kind of RL run the loop drives: `curricula train` (trainRunKind, the default) or another command
 * built on the same loop with its own config schema and context (`curricula teach`, src/rlt).
 */
export interface RlRunKind {
  /** Validates a new run's config and resolves its defaults (strict schema of this kind). */
  parse(config: unknown): RlConfig;
  /** Everything that can be checked without loading a model (before a run directory is created). */
  validate(config: RlConfig): void;
  build(config: RlConfig, modelPath?: string): Promise<RlContext>;
  resume(request: ResumeRequest<RlConfig>): ResumedConfig<RlConfig>;
  /** Metrics of this kind, added to each step's metrics. */
  stepMetrics?(report: StepReport): Record<string, number>;
  /**
   * Whether held-out pass@1 picks the run's BEST checkpoint (default true), which a run directory resolves
   * to. A teach run's evaluation is its teacher as a plain solver, a sanity check and not its objective:
   * it keeps no BEST, so its run directory resolves to its LATEST checkpoint.
   */
  tracksBest?: boolean;
}

export const trainRunKind: RlRunKind = {
  parse: (config) => rlConfigSchema.parse(config),
  validate: validateRlConfig,
  build: buildContext,
  resume: resumedRlConfig,
};

export interface TrainHooks {
  /** Advice about the settings of a new run (valid, but likely not what was meant); also a run event. */
  onAdvice?: (message: string) => void;
  /** After each step is logged; a returned promise is awaited before the next step (trainSteps' backpressure). */
  onStep?: (step: number, metrics: Record<string, number>) => unknown;
  onEval?: (step: number, summary: EvalSummary) => void;
}

/** What an RL run returns: its directory, steps run, held-out evaluations before and after, and wall time. */
export interface TrainResult {
  runDir: string;
  steps: number;
  /** Held-out evaluation before the first step (absent on resume past step 0) and after the last. */
  initialEval?: EvalSummary;
  finalEval: EvalSummary;
  wallSeconds: number;
}

export interface TrainOptions extends TrainHooks {
  /** Continue this run directory with its stored config (`config`, when given, must match it). */
  resume?: string;
  /** With `resume`: the run's new total number of steps (extends or shortens it). */
  steps?: number;
  overwrite?: boolean;
  /** Told what is removed when `overwrite` replaces an existing run. */
  onOverwrite?: (message: string) => void;
  /**
   * Told when a resume continues from somewhere else than asked: LATEST is missing and the newest intact
   * checkpoint is used (default: printed on stderr as `warning: …`). Also a `checkpoint-fallback` event.
   */
  onWarning?: (message: string) => void;
  /** Stop after this many steps in this process (tests of resume); the run stays resumable. */
  stopAfter?: number;
  /** The kind of run (default: `curricula train`). */
  kind?: RlRunKind;
  /**
   * Cancels the run: it stops after the step in progress, saves a checkpoint (resumable with `resume`)
   * and rejects with RunCancelledError. Already aborted: rejects before anything is created.
   */
  signal?: AbortSignal;
}

export async function train(config: RlConfig | null, options: TrainOptions = {}): Promise<TrainResult> {
  const started = Date.now();
  options.signal?.throwIfAborted();
  // Everything that can fail on a bad config (names, options, reward fit, selector metadata) runs in
  // buildContext before a new run directory is created, so a mistake leaves nothing behind.
  const { store, ctx, latest, previousSteps } = await openRun(config, options);
  try {
    const runConfig = ctx.config;
    ctx.reward.useRunDirectory?.(store.dir); // a judge's verdict cache lives with the run
    if (previousSteps !== undefined) recordNewSteps(store, latest?.state.step ?? 0, previousSteps, runConfig);
    const start = latest ? restoreRun(ctx, store, latest) : await startRun(ctx, store, options);
    const { step, initialEval } = start;

    const save = checkpointSaver(ctx, store, start, (options.kind ?? trainRunKind).tracksBest ?? true);
    if (!latest) await save(step, initialEval);

    const { steps } = runConfig.train;
    let report: StepReport | undefined;
    const { step: lastStep, finalEval } = await runSteps({
      store,
      startStep: step,
      savedStep: step,
      steps,
      stopAfter: options.stopAfter,
      signal: options.signal,
      evalEvery: runConfig.eval.every,
      checkpoint: runConfig.checkpoint,
      async step(atStep) {
        report = await rlStep(ctx, atStep, learningRateAt(runConfig.train, atStep, steps));
        return { ...report.metrics, ...options.kind?.stepMetrics?.(report) };
      },
      evaluate: (atStep) => evaluate(ctx, atStep),
      onEval: options.onEval,
      record(atStep, metrics) {
        store.logMetrics(atStep, metrics);
        store.logSamples(
          atStep,
          sampleRecords(report!.groups, runConfig.log.samplesPerStep, {
            tokenizer: ctx.policy.tokenizer,
            scaffold: ctx.guidance.name,
            tokens: runConfig.log.sampleTokens,
          }),
        );
        store.logRewardErrors(atStep, report!.rewardErrors);
        return options.onStep?.(atStep, metrics);
      },
      save,
    });
    return {
      runDir: store.dir,
      steps: lastStep,
      initialEval,
      finalEval,
      wallSeconds: (Date.now() - started) / 1000,
    };
  } finally {
    store.close();
    await ctx.reward.close?.();
    // Worker threads (policy.workers > 1) are closed however the run ends.
    await ctx.policy.close?.();
    await ctx.reference?.close?.();
    await closeComponents(ctx.components);
  }
}

/** Saves a checkpoint: weights, RNG, selector, guidance, each component's state, the best score so far. */
function checkpointSaver(ctx: RlContext, store: RunStore, start: RunStart, tracksBest: boolean) {
  let bestScore = start.bestScore;
  return async (atStep: number, summary?: EvalSummary) => {
    const best = tracksBest && summary !== undefined && summary.overall.passAt1 > bestScore;
    if (best) bestScore = summary.overall.passAt1;
    await saveCheckpoint(
      store.checkpointsDir,
      {
        step: atStep,
        rng: ctx.rng.state(),
        selector: ctx.selector.state(),
        extra: {
          bestScore,
          guidance: ctx.guidance.state(),
          ...componentStates(ctx.components),
          initialEval: start.initialEval,
        },
      },
      async (dir) => {
        await ctx.policy.save(dir);
        // models a component trains itself (Tango's verifier), beside the policy's
        await saveComponentModels(ctx.components, join(dirname(dir), 'components'));
      },
      { best, keep: ctx.config.checkpoint.every > 0 && atStep % ctx.config.checkpoint.every === 0 },
    );
  };
}

interface RunStart {
  step: number;
  bestScore: number;
  initialEval?: EvalSummary;
}

/** Resume: RNG, selector, guidance and components from the checkpoint; the steps logged after it are forgotten. */
function restoreRun(ctx: RlContext, store: RunStore, latest: CheckpointRef): RunStart {
  const step = latest.state.step;
  ctx.rng = Rng.fromState(latest.state.rng);
  const saved = latest.state.extra ?? {};
  ctx.selector.load(latest.state.selector);
  ctx.guidance.load(saved.guidance);
  loadComponents(ctx.components, saved);
  // Steps logged after the checkpoint are forgotten and run again (the event names them).
  const replayed = store.truncateAfter(step);
  store.event('resumed', { step, replayed });
  return {
    step,
    bestScore: Number(saved.bestScore ?? Number.NEGATIVE_INFINITY),
    initialEval: saved.initialEval as EvalSummary | undefined,
  };
}

/** A new run (or a resume with no checkpoint yet): advice, then the evaluation before the first step. */
async function startRun(ctx: RlContext, store: RunStore, options: TrainOptions): Promise<RunStart> {
  const { train: schedule } = ctx.config;
  const advice = [
    ...runAdvice({
      selector: ctx.selector,
      poolSize: ctx.poolSize,
      steps: schedule.steps,
      batchSize: schedule.batchSize,
    }),
    ...(ctx.advice ?? []),
  ];
  for (const message of advice) {
    store.event('advice', { message });
    options.onAdvice?.(message);
  }
  if (options.resume) store.truncateAfter(-1);
  const initialEval = await evaluate(ctx, 0);
  store.logMetrics(0, initialEval.metrics);
  options.onEval?.(0, initialEval);
  return { step: 0, bestScore: Number.NEGATIVE_INFINITY, initialEval };
}

async function openRun(
  config: RlConfig | null,
  options: TrainOptions,
): Promise<{ store: RunStore; ctx: RlContext; latest: CheckpointRef | null; previousSteps?: number }> {
  const kind = options.kind ?? trainRunKind;
  if (options.resume) {
    // Checked before the run is opened for writing: a pretrain run, or a --config that differs, is refused.
    const resumed = kind.resume({ dir: options.resume, given: config, steps: options.steps });
    const store = RunStore.resume(options.resume);
    try {
      const latest = resumePoint(store, options.onWarning);
      const ctx = await kind.build(resumed.config, latest?.modelPath);
      if (ctx.poolFile) {
        checkPoolUnchanged(store.events().find((event) => event.kind === 'pool-file')?.detail, ctx.poolFile);
      }
      if ((ctx.config.policy?.backend ?? 'embedded') === 'embedded') recordKernels(store, options.onWarning);
      return { store, ctx, latest, previousSteps: resumed.previousSteps };
    } catch (error) {
      store.close();
      throw error;
    }
  }
  if (!config) throw new ConfigError('give a config (--config) or a run to resume (--resume)');
  if (options.steps !== undefined) {
    throw new ConfigError('steps is for resume (extending a run); set train.steps in the config instead');
  }
  kind.validate(config);
  checkRunsDirectory(config.runsDir);
  // The fully resolved config is stored (policy.workers as a number): resume and reports read it back.
  const parsed = kind.parse(config);
  const embedded = (parsed.policy?.backend ?? 'embedded') === 'embedded';
  const resolved = pinWorkerCount(parsed, embedded ? defaultEngine().engine : undefined);
  const ctx = await kind.build(resolved);
  const store = RunStore.create(runDirectory(config.runsDir, config.name), resolved, {
    overwrite: options.overwrite,
    onOverwrite: options.onOverwrite,
  });
  if (ctx.poolFile) store.event('pool-file', ctx.poolFile);
  if ((ctx.config.policy?.backend ?? 'embedded') === 'embedded') recordKernels(store, options.onWarning);
  return { store, ctx, latest: null };
}

async function evaluate(ctx: RlContext, step: number): Promise<EvalSummary> {
  const { config } = ctx;
  const problems = heldOutProblems(config.tasks, config.eval.problemsPerDifficulty, config.seed);
  const options = {
    samples: config.eval.samples,
    temperature: config.eval.temperature,
    seed: config.seed + 1_000_003 * (step + 1),
  };
  // A component may sample it (the environment's episodes); else single-turn.
  for (const { hooks } of ctx.components) {
    const outcomes = hooks.sampleEvaluation?.(ctx.policy, problems, options);
    if (outcomes) return summarizeOutcomes(await outcomes);
  }
  return summarizeOutcomes(await sampleAndVerify(ctx.policy, problems, options));
}
