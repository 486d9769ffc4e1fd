// `curricula train`: the RL loop around rlStep — run store, held-out evaluation every N steps, checkpoints
// (model, optimizer, selector, guidance and RNG state), and crash-safe resume: after a kill -9 the run
// restarts from its latest checkpoint, forgets the logged steps after it and replays them; with the same
// seed the replayed steps give the same metrics as an uninterrupted run.
import { ConfigError, RunCancelledError } from '../../core/errors.ts';
import { Rng } from '../../core/rng.ts';
import type { EvalSummary } from '../../eval/aggregate.ts';
import { summarizeOutcomes } from '../../eval/aggregate.ts';
import { sampleAndVerify } from '../../eval/evaluate.ts';
import { pinWorkerCount } from '../../policy/parallel-options.ts';
import { type CheckpointRef, resumeCheckpoint, saveCheckpoint } from '../../runs/checkpoints.ts';
import { checkRunsDirectory, runDirectory } from '../../runs/run-name.ts';
import { RunStore } from '../../runs/run-store.ts';
import { heldOutProblems } from '../../tasks/problem-mix.ts';
import { type ResumedConfig, type ResumeRequest, recordNewSteps, resumedRlConfig } from '../resume.ts';
import { learningRateAt } from '../schedule.ts';
import { runAdvice } from './advice.ts';
import { closeComponents, componentStates, loadComponents } from './component-lifecycle.ts';
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
    if (previousSteps !== undefined) recordNewSteps(store, latest?.state.step ?? 0, previousSteps, runConfig);
    let step = 0;
    let bestScore = Number.NEGATIVE_INFINITY;
    let initialEval: EvalSummary | undefined;
    if (latest) {
      step = latest.state.step;
      ctx.rng = Rng.fromState(latest.state.rng);
      const saved = latest.state.extra ?? {};
      ctx.selector.load(latest.state.selector);
      ctx.guidance.load(saved.guidance);
      loadComponents(ctx.components, saved);
      bestScore = Number(saved.bestScore ?? bestScore);
      initialEval = saved.initialEval as EvalSummary | undefined;
      // Steps logged after the checkpoint are forgotten and run again (the event names them).
      const replayed = store.truncateAfter(step);
      store.event('resumed', { step, replayed });
    } else {
      const { train: schedule } = runConfig;
      for (const message of [
        ...runAdvice({
          selector: ctx.selector,
          poolSize: ctx.poolSize,
          steps: schedule.steps,
          batchSize: schedule.batchSize,
        }),
        ...(ctx.advice ?? []),
      ]) {
        store.event('advice', { message });
        options.onAdvice?.(message);
      }
      if (options.resume) store.truncateAfter(-1);
      initialEval = await evaluate(ctx, 0);
      store.logMetrics(0, initialEval.metrics);
      options.onEval?.(0, initialEval);
    }

    const checkpoint = async (summary?: EvalSummary) => {
      const best = summary !== undefined && summary.overall.passAt1 > bestScore;
      if (best) bestScore = summary.overall.passAt1;
      await saveCheckpoint(
        store.checkpointsDir,
        {
          step,
          rng: ctx.rng.state(),
          selector: ctx.selector.state(),
          extra: {
            bestScore,
            guidance: ctx.guidance.state(),
            ...componentStates(ctx.components),
            initialEval,
          },
        },
        (dir) => ctx.policy.save(dir),
        { best, keep: runConfig.checkpoint.every > 0 && step % runConfig.checkpoint.every === 0 },
      );
    };
    if (!latest) await checkpoint(initialEval);

    const { steps } = runConfig.train;
    let lastEval: EvalSummary | undefined;
    let ranHere = 0;
    let savedStep = step;
    while (step < steps) {
      if (options.stopAfter !== undefined && ranHere >= options.stopAfter) break;
      if (options.signal?.aborted) {
        if (savedStep !== step) await checkpoint();
        store.event('cancelled', { step });
        throw new RunCancelledError(store.dir, step);
      }
      step++;
      ranHere++;
      const learningRate = learningRateAt(runConfig.train, step, steps);
      const report = await rlStep(ctx, step, learningRate);
      const metrics = { ...report.metrics, ...options.kind?.stepMetrics?.(report) };
      const evalDue = (runConfig.eval.every > 0 && step % runConfig.eval.every === 0) || step === steps;
      let summary: EvalSummary | undefined;
      if (evalDue) {
        summary = await evaluate(ctx, step);
        lastEval = summary;
        Object.assign(metrics, summary.metrics);
        options.onEval?.(step, summary);
      }
      store.logMetrics(step, metrics);
      store.logSamples(
        step,
        sampleRecords(report.groups, runConfig.log.samplesPerStep, {
          tokenizer: ctx.policy.tokenizer,
          scaffold: ctx.guidance.name,
          tokens: runConfig.log.sampleTokens,
        }),
      );
      store.logRewardErrors(step, report.rewardErrors);
      await options.onStep?.(step, metrics);
      const every = runConfig.checkpoint.every;
      if (evalDue || step % runConfig.checkpoint.latestEvery === 0 || (every > 0 && step % every === 0)) {
        await checkpoint(summary);
        savedStep = step;
      }
    }
    const finalEval = lastEval ?? (await evaluate(ctx, step));
    if (step >= steps) store.event('finished', { step });
    return {
      runDir: store.dir,
      steps: step,
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
      const { checkpoint: latest, notice } = resumeCheckpoint(store.checkpointsDir);
      if (notice) {
        store.event('checkpoint-fallback', { message: notice, checkpoint: latest?.name });
        (options.onWarning ?? ((message) => console.error(`warning: ${message}`)))(notice);
      }
      const ctx = await kind.build(resumed.config, latest?.modelPath);
      if (ctx.poolFile) {
        checkPoolUnchanged(store.events().find((event) => event.kind === 'pool-file')?.detail, ctx.poolFile);
      }
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
  const resolved = pinWorkerCount(kind.parse(config));
  const ctx = await kind.build(resolved);
  const store = RunStore.create(runDirectory(config.runsDir, config.name), resolved, {
    overwrite: options.overwrite,
    onOverwrite: options.onOverwrite,
  });
  if (ctx.poolFile) store.event('pool-file', ctx.poolFile);
  return { store, ctx, latest: null };
}

async function evaluate(ctx: RlContext, step: number): Promise<EvalSummary> {
  const { config } = ctx;
  const problems = heldOutProblems(config.tasks, config.eval.problemsPerDifficulty, config.seed);
  const outcomes = await sampleAndVerify(ctx.policy, problems, {
    samples: config.eval.samples,
    temperature: config.eval.temperature,
    seed: config.seed + 1_000_003 * (step + 1),
  });
  return summarizeOutcomes(outcomes);
}
