// One worker count of `curricula bench policy`: the embedded policy with N replicas (N = 1: the
// in-process EmbeddedBackend; N ≥ 2: the worker-parallel backend, parallel-backend.ts), measured on the
// same data for every N:
// - a full training step: forwardBackward('cross_entropy') + optimStep (Adam, lr 1e-3, no weight decay,
//   no clipping) on B full-context sequences; tokens/s = B·T / step. With N workers the sequences are
//   split across the replicas and the gradients summed, exactly as in training;
// - KV-cached sampling through PolicyBackend.sample of 8 prompts × n rows, temperature 1, from an
//   8-token prompt to the full context (EOS disabled, bench-tokenizer.ts); tokens/s = generated tokens /
//   wall time, prefill included. With N workers the prompts are split across the replicas;
// - with --roofline, the forward pass alone as well, for the per-phase achieved GFLOP/s; on the native
//   engine with 1 worker also native/model.c's own profile of the timed steps (time and GFLOP/s per phase
//   of the pass: where the non-matmul time goes).
import type { Datum, PolicyBackend } from '../core/policy.ts';
import type { Rng } from '../core/rng.ts';
import { EmbeddedBackend, type TrainEngine } from '../policy/embedded-backend.ts';
import type { ModelConfig } from '../policy/model-config.ts';
import { type NativeModelProfile, nativeModelProfile } from '../policy/native-model.ts';
import { ParallelEmbeddedBackend } from '../policy/parallel-backend.ts';
import { type EngineThreads, resolveEngineThreads } from '../policy/parallel-options.ts';
import { fmt, type Measurement, measurement, timeRuns } from './bench-timing.ts';
import { benchTokenizer, noEosTokenizerFactory } from './bench-tokenizer.ts';
import { samplingFlops, trainStepFlops } from './flops.ts';
import { median } from './median.ts';
import { type Phase, rooflinePhases } from './roofline.ts';

export interface WorkersRunOptions {
  repeats: number;
  warmup: number;
  trainBatch: number;
  /** Rows decoded together (8 prompts × n). */
  sampleBatch: number;
  /** Also time the forward pass and return the phases' FLOPs and times. */
  roofline: boolean;
  /** Where the parallel backend's warnings go (more workers than cores). */
  onWarning?: (message: string) => void;
  /** policy.engine of the measured backend (default tfjs). */
  engine?: TrainEngine;
  /** policy.threads of the native engine (default 'auto': the cores per worker). */
  engineThreads?: EngineThreads;
}

/** The measurements of one worker count (before the ratios to PyTorch). */
export interface WorkersRun {
  workers: number;
  train: Measurement & { batch: number };
  sample: Measurement & { batch: number; promptLength: number };
  /** Analytic FLOPs and median times of each phase (--roofline), or null. */
  phases: { phase: Phase; flops: number; medianMs: number }[] | null;
  /** The native engine's threads per replica, or null on tfjs. */
  engineThreads: number | null;
  /** native/model.c's own profile of the timed training steps (--roofline, native engine, 1 worker). */
  nativePhases: NativeModelProfile | null;
}

export const samplePromptLength = 8;
export const samplePromptCount = 8;

/** B random sequences of T tokens, every prediction weighted 1. */
export function trainingData(config: ModelConfig, batch: number, rng: Rng): Datum[] {
  return Array.from({ length: batch }, () => ({
    tokens: Array.from({ length: config.contextLength }, () => rng.int(0, config.vocabSize - 1)),
    weights: new Array(config.contextLength - 1).fill(1),
  }));
}

/** 8 prompts of 8 tokens (BOS first) from `rng`. */
export function samplingPrompts(config: ModelConfig, rng: Rng, bos: number): number[][] {
  return Array.from({ length: samplePromptCount }, () => [
    bos,
    ...Array.from({ length: samplePromptLength - 1 }, () => rng.int(3, config.vocabSize - 1)),
  ]);
}

async function createBackend(
  config: ModelConfig,
  workers: number,
  onWarning: ((message: string) => void) | undefined,
  engine: TrainEngine | undefined,
  engineThreads: number | undefined,
): Promise<EmbeddedBackend | ParallelEmbeddedBackend> {
  const tokenizer = benchTokenizer(config.vocabSize);
  if (workers === 1) return EmbeddedBackend.create(config, tokenizer, 1, { engine, engineThreads });
  return ParallelEmbeddedBackend.create(config, tokenizer, 1, {
    workers,
    engine,
    engineThreads,
    tokenizerFactory: noEosTokenizerFactory,
    onWarning,
  });
}

/** Measures the training step and sampling (and the forward pass, --roofline) with `workers` replicas. */
export async function measureWorkers(
  label: string,
  config: ModelConfig,
  workers: number,
  input: { data: Datum[]; prompts: number[][] },
  options: WorkersRunOptions,
  progress: (line: string) => void,
): Promise<WorkersRun> {
  const engineThreads =
    options.engine === 'native' ? resolveEngineThreads(options.engineThreads, workers) : null;
  const backend: PolicyBackend & { close?: () => Promise<void>; dispose?: () => void } = await createBackend(
    config,
    workers,
    options.onWarning,
    options.engine,
    engineThreads ?? undefined,
  );
  const engineLabel =
    engineThreads === null
      ? ''
      : `, native engine (${engineThreads} thread${engineThreads === 1 ? '' : 's'})`;
  const name = `${label}, ${workers} worker${workers === 1 ? '' : 's'}${engineLabel}`;
  // native/model.c profiles itself in this thread's addon instance (workers have their own).
  const profiling = options.roofline && engineThreads !== null && workers === 1;
  try {
    // The two halves of each step are timed too, for the roofline (the last `repeats` are the timed runs).
    const forwardBackwardMs: number[] = [];
    const optimizerMs: number[] = [];
    let timed = 0;
    const trainRuns = await timeRuns(options.warmup, options.repeats, async () => {
      // the profile covers the timed runs only: it is (re)started before the first of them
      if (profiling && timed++ === options.warmup) nativeModelProfile(true);
      const start = performance.now();
      await backend.forwardBackward(input.data, 'cross_entropy');
      const middle = performance.now();
      await backend.optimStep({ learningRate: 1e-3, weightDecay: 0, gradClip: 0 });
      forwardBackwardMs.push(middle - start);
      optimizerMs.push(performance.now() - middle);
    });
    const nativePhases = profiling ? nativeModelProfile(false) : null;
    const train = {
      ...measurement(options.trainBatch * config.contextLength, trainRuns),
      batch: options.trainBatch,
    };
    progress(
      `${name}: train step  ${fmt(train.tokensPerSecond)} tokens/s (median ${fmt(train.medianMs)} ms; ${fmt(train.tokensPerCpuSecond)} per CPU-second)`,
    );

    const n = Math.max(1, Math.round(options.sampleBatch / samplePromptCount));
    let seed = 0;
    let generated = 0;
    const sampleRuns = await timeRuns(options.warmup, options.repeats, async () => {
      const result = await backend.sample(input.prompts, {
        n,
        temperature: 1,
        topP: 1,
        maxTokens: config.contextLength,
        seed: seed++,
      });
      generated = result.flat().reduce((total, sample) => total + sample.tokens.length, 0);
    });
    const sample = {
      ...measurement(generated, sampleRuns),
      batch: samplePromptCount * n,
      promptLength: samplePromptLength,
    };
    progress(
      `${name}: sampling    ${fmt(sample.tokensPerSecond)} tokens/s (batch ${sample.batch}; ${fmt(sample.tokensPerCpuSecond)} per CPU-second)`,
    );

    const phases = options.roofline
      ? await measurePhases(backend, config, input, options, {
          forwardBackwardMs,
          optimizerMs,
          trainMs: train.medianMs,
          sample,
          generated,
          native: engineThreads !== null,
        })
      : null;
    return { workers, train, sample, phases, engineThreads, nativePhases };
  } finally {
    backend.dispose?.();
    await backend.close?.();
  }
}

/** --roofline: the phases' analytic FLOPs and median times (the forward pass timed on its own on tfjs). */
async function measurePhases(
  backend: PolicyBackend,
  config: ModelConfig,
  input: { data: Datum[] },
  options: WorkersRunOptions,
  timed: {
    forwardBackwardMs: number[];
    optimizerMs: number[];
    trainMs: number;
    sample: { batch: number; medianMs: number };
    generated: number;
    native: boolean;
  },
): Promise<NonNullable<WorkersRun['phases']>> {
  const sequences = input.data.map((datum) => datum.tokens);
  // the native engine's pass is one call (its phases are in nativePhases): no separate forward
  const forwardRuns = timed.native
    ? null
    : await timeRuns(options.warmup, options.repeats, () => backend.forward(sequences));
  return rooflinePhases(
    trainStepFlops(config, options.trainBatch, config.contextLength),
    {
      forward: forwardRuns ? median(forwardRuns.runsMs) : null,
      forwardBackward: median(timed.forwardBackwardMs.slice(-options.repeats)),
      optimizer: median(timed.optimizerMs.slice(-options.repeats)),
    },
    timed.trainMs,
    {
      flops: samplingFlops(
        config,
        samplePromptCount,
        samplePromptLength,
        timed.sample.batch,
        timed.generated / timed.sample.batch,
      ),
      medianMs: timed.sample.medianMs,
    },
  );
}
