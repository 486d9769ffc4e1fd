// Supervised cold start: next-token training on worked solutions over a task/difficulty mix, with
// periodic held-out evaluation and checkpoints in a run directory. Resumable after a crash: the latest
// checkpoint holds the model, optimizer and RNG state, and logged steps after it are dropped on resume.
import { ConfigError } from '../core/errors.ts';
import type { PolicyBackend, Tokenizer } from '../core/policy.ts';
import { Rng } from '../core/rng.ts';
import { checkModelMemory } from '../core/size-limits.ts';
import { type EvalSummary, summarizeOutcomes } from '../eval/aggregate.ts';
import { sampleAndVerify } from '../eval/evaluate.ts';
import { defaultEngine } from '../policy/default-engine.ts';
import { createEmbeddedPolicy, loadEmbeddedPolicy } from '../policy/parallel-factory.ts';
import { defaultWorkers, engineChoice, pinWorkerCount } from '../policy/parallel-options.ts';
import { suiteTokenizer } from '../policy/tokenizer.ts';
import { type CheckpointRef, saveCheckpoint } from '../runs/checkpoints.ts';
import { checkRunsDirectory, runDirectory } from '../runs/run-name.ts';
import { RunStore } from '../runs/run-store.ts';
import { solutionDatum } from '../tasks/format.ts';
import { maxSequenceLength } from '../tasks/lengths.ts';
import { entryTask, heldOutProblems, type MixEntry, ProblemMix, validateMix } from '../tasks/problem-mix.ts';
import { resolveModelShape } from './model-presets.ts';
import type { PretrainConfig } from './pretrain-config.ts';
import { recordNewSteps, resumedPretrainConfig } from './resume.ts';
import { resumePoint, runSteps } from './run-driver.ts';
import { supervisedStep } from './supervised-step.ts';

export interface PretrainHooks {
  onStep?: (step: number, metrics: Record<string, number>) => void;
  onEval?: (step: number, summary: EvalSummary) => void;
  onCheckpoint?: (step: number, path: string) => void;
}

/** What a pretrain run returns: its directory, steps run, final held-out evaluation and wall time. */
export interface PretrainResult {
  runDir: string;
  steps: number;
  finalEval: EvalSummary;
  wallSeconds: number;
}

export interface PretrainOptions extends PretrainHooks {
  /** Continue this run directory with its stored config (`config`, when given, must match it). */
  resume?: string;
  /** With `resume`: the run's new total number of steps (extends or shortens it). */
  steps?: number;
  overwrite?: boolean;
  /** Told what is removed when `overwrite` replaces an existing run. */
  onOverwrite?: (message: string) => void;
  /** Told when a resume finds LATEST missing and continues from the newest intact checkpoint (default: stderr). */
  onWarning?: (message: string) => void;
  /**
   * Cancels the run: it stops after the step in progress, saves a checkpoint (resumable with `resume`)
   * and rejects with RunCancelledError. Already aborted: rejects before anything is created.
   */
  signal?: AbortSignal;
}

export async function pretrain(
  given: PretrainConfig | null,
  options: PretrainOptions = {},
): Promise<PretrainResult> {
  const started = Date.now();
  options.signal?.throwIfAborted();
  if (!given && !options.resume) {
    throw new ConfigError('give a config (--config) or a run to resume (--resume)');
  }
  if (options.steps !== undefined && !options.resume) {
    throw new ConfigError('steps is for resume (extending a run); set train.steps in the config instead');
  }
  const resumed = options.resume
    ? resumedPretrainConfig({ dir: options.resume, given, steps: options.steps })
    : null;
  // A new run stores policy.workers as a number (auto resolved here), so that a resume elsewhere matches.
  const config = resumed?.config ?? pinWorkerCount(given as PretrainConfig, defaultEngine().engine);
  validateMix(config.tasks, 'tasks');
  if (!options.resume) checkRunsDirectory(config.runsDir);
  const shape = resolveModelShape(config.model);
  const tokenizer = suiteTokenizer();
  checkModelMemory(shape, tokenizer.vocabSize, 'model');
  const heldOut = heldOutProblems(config.tasks, config.eval.problemsPerDifficulty, config.seed);
  const mix = new ProblemMix(config.tasks);
  checkSequencesFit(config.tasks, shape.contextLength);

  const store = options.resume
    ? RunStore.resume(options.resume)
    : RunStore.create(runDirectory(config.runsDir, config.name), config, {
        overwrite: options.overwrite,
        onOverwrite: options.onOverwrite,
      });
  // Worker threads (policy.workers > 1) are closed however the run ends.
  let opened: PolicyBackend | undefined;
  try {
    const latest = options.resume ? resumePoint(store, options.onWarning) : null;
    const start = await openPolicy(config, store, latest, options.resume !== undefined);
    const { backend, step, rng } = start;
    opened = backend;
    if (resumed?.previousSteps !== undefined) recordNewSteps(store, step, resumed.previousSteps, config);

    const evaluate = async (atStep: number): Promise<EvalSummary> => {
      const outcomes = await sampleAndVerify(backend, heldOut, {
        samples: config.eval.samples,
        temperature: config.eval.temperature,
        seed: config.seed + atStep,
      });
      return summarizeOutcomes(outcomes);
    };
    const { train } = config;
    const { step: lastStep, finalEval } = await runSteps({
      store,
      startStep: step,
      savedStep: latest ? step : -1,
      steps: train.steps,
      signal: options.signal,
      evalEvery: config.eval.every,
      checkpoint: config.checkpoint,
      step: (atStep) => pretrainStep({ backend, tokenizer, mix, rng }, config, atStep),
      evaluate,
      onEval: options.onEval,
      record(atStep, metrics) {
        store.logMetrics(atStep, metrics);
        options.onStep?.(atStep, metrics);
      },
      save: checkpointSaver(config, store, start, options.onCheckpoint),
    });
    return { runDir: store.dir, steps: lastStep, finalEval, wallSeconds: (Date.now() - started) / 1000 };
  } finally {
    store.close();
    await opened?.close?.();
  }
}

/** Saves weights, optimizer and RNG state and the best score so far; tells `onCheckpoint`. */
function checkpointSaver(
  config: PretrainConfig,
  store: RunStore,
  start: { backend: PolicyBackend; rng: Rng; bestScore: number },
  onCheckpoint?: (step: number, path: string) => void,
) {
  let bestScore = start.bestScore;
  return async (atStep: number, summary?: EvalSummary) => {
    const best = summary !== undefined && summary.overall.passAt1 > bestScore;
    if (best) bestScore = summary.overall.passAt1;
    const keep = config.checkpoint.every > 0 && atStep % config.checkpoint.every === 0;
    const saved = await saveCheckpoint(
      store.checkpointsDir,
      { step: atStep, rng: start.rng.state(), extra: { bestScore } },
      (dir) => start.backend.save(dir),
      { best, keep },
    );
    onCheckpoint?.(atStep, saved.path);
  };
}

/** One supervised step on a batch of worked solutions drawn from the mix; its train/ and perf/ metrics. */
async function pretrainStep(
  {
    backend,
    tokenizer,
    mix,
    rng,
  }: { backend: PolicyBackend; tokenizer: Tokenizer; mix: ProblemMix; rng: Rng },
  config: PretrainConfig,
  step: number,
): Promise<Record<string, number>> {
  const { train } = config;
  const stepStart = performance.now();
  const data = Array.from({ length: train.batchSize }, () => solutionDatum(tokenizer, mix.draw(rng)));
  const result = await supervisedStep(backend, data, train, step, train.steps);
  const seconds = (performance.now() - stepStart) / 1000;
  const tokens = data.reduce((sum, datum) => sum + datum.tokens.length, 0);
  return {
    'train/loss': result.loss,
    'train/lr': result.learningRate,
    'train/grad_norm': result.gradNorm,
    'perf/tokens_per_sec': tokens / seconds,
    'perf/step_seconds': seconds,
  };
}

/** The policy to train, and where the run stands: from the checkpoint on resume, else a fresh model. */
async function openPolicy(
  config: PretrainConfig,
  store: RunStore,
  latest: CheckpointRef | null,
  resuming: boolean,
): Promise<{ backend: PolicyBackend; step: number; rng: Rng; bestScore: number }> {
  const workers = config.policy?.workers ?? defaultWorkers;
  if (latest) {
    const backend = await loadEmbeddedPolicy(latest.modelPath, workers, engineChoice(config.policy));
    const step = latest.state.step;
    const replayed = store.truncateAfter(step);
    store.event('resumed', { step, replayed });
    return {
      backend,
      step,
      rng: Rng.fromState(latest.state.rng),
      bestScore: Number(latest.state.extra?.bestScore ?? Number.NEGATIVE_INFINITY),
    };
  }
  if (resuming) store.truncateAfter(0);
  const tokenizer = suiteTokenizer();
  const shape = resolveModelShape(config.model);
  const backend = await createEmbeddedPolicy(
    { ...shape, vocabSize: tokenizer.vocabSize },
    tokenizer,
    config.seed,
    workers,
    engineChoice(config.policy),
  );
  return { backend, step: 0, rng: new Rng(config.seed), bestScore: Number.NEGATIVE_INFINITY };
}

/** Fails before training when the longest sequence of some (task, difficulty) cannot fit the context. */
function checkSequencesFit(entries: readonly MixEntry[], contextLength: number): void {
  for (const entry of entries) {
    for (const difficulty of entry.difficulties) {
      const length = maxSequenceLength(entryTask(entry), difficulty);
      if (length > contextLength) {
        throw new ConfigError(
          `${entry.task} difficulty ${difficulty} needs sequences of ${length} tokens (its longest) but model.contextLength is ${contextLength}; raise contextLength or lower the difficulty`,
        );
      }
    }
  }
}
