// `curricula bench policy`: throughput of the embedded policy on this machine.
//
// For each model size it measures, as medians over timed repetitions after untimed warm-ups:
// - a full training step: EmbeddedBackend.forwardBackward('cross_entropy') + optimStep (Adam, lr 1e-3,
//   no weight decay, no clipping) on B full-context sequences of random tokens; tokens/s = B·T / step;
// - KV-cached sampling (sampleWithKvCache) of a batch of `sampleBatch` rows (8 prompts × n), temperature
//   1, from an 8-token prompt to the full context; tokens/s = generated tokens / wall time, prefill
//   included. EOS is disabled for the measurement so every row runs to the context limit and the batch
//   stays full (a trained model's early stops would only make the batch smaller);
// - optionally the same training step and the same KV-cached sampling in PyTorch (bench/torch_baseline.py,
//   CPU), swept over torch threads × OpenBLAS threads (torch-sweep.ts); ratios are against the best cell;
// - optionally (--roofline) peak matrix-product rates and achieved GFLOP/s per phase (roofline.ts).
// Peak RSS is process.resourceUsage().maxRSS of this process (the PyTorch children are not included).

import os from 'node:os';
import type { Datum } from '../core/policy.ts';
import { Rng } from '../core/rng.ts';
import { EmbeddedBackend } from '../policy/embedded-backend.ts';
import { type ModelConfig, parameterCount } from '../policy/model-config.ts';
import { samplingFlops, trainStepFlops } from './flops.ts';
import { median } from './median.ts';
import {
  type PolicyBenchConfigName,
  policyBenchConfigs,
  policyBenchTargets,
} from './policy-bench-configs.ts';
import {
  type BlasPeaks,
  bestBlasPeak,
  type ConfigRoofline,
  measureBlasPeaks,
  measureWasmMatmuls,
  modelMatmulShapes,
  phaseRooflines,
  rooflinePhases,
} from './roofline.ts';
import {
  runTorchSweep,
  spawnTorchScript,
  sweepCells,
  type TorchCell,
  type TorchCellResult,
  type TorchRunner,
  type TorchSweep,
  torchAvailability,
} from './torch-sweep.ts';

export { median } from './median.ts';
export {
  type PolicyBenchConfigName,
  parseBenchConfigs,
  policyBenchConfigs,
  policyBenchTargets,
} from './policy-bench-configs.ts';
export { torchAvailability } from './torch-sweep.ts';

import { type NativeKernelStatus, nativeKernelStatus } from '../policy/native-kernels.ts';
import { initRuntime } from '../policy/runtime.ts';
import { sampleWithKvCache } from '../policy/sampler.ts';
import { CharTokenizer } from '../policy/tokenizer.ts';

/** Model sizes of the benchmark (vocabulary 64, as the suite's character vocabulary). */
export interface PolicyBenchOptions {
  configs: PolicyBenchConfigName[];
  /** Timed repetitions per measurement; the median is reported. */
  repeats: number;
  /** Untimed repetitions before the timed ones. */
  warmup: number;
  /** Sequences per training step. */
  trainBatch: number;
  /** Rows decoded together when sampling (a multiple of 8: 8 prompts × n). */
  sampleBatch: number;
  /** Python interpreter for the PyTorch baseline; null skips it. */
  python: string | null;
  /** torch.set_num_threads values swept (OMP_NUM_THREADS follows). */
  torchThreads: number[];
  /** OPENBLAS_NUM_THREADS values swept. */
  blasThreads: number[];
  /** Also measure peak GFLOP/s and the achieved GFLOP/s of each phase. */
  roofline: boolean;
  /** Runs the PyTorch script; the default spawns `python`. Tests inject a stub. */
  torchRunner?: TorchRunner;
  /** One line per finished measurement (the CLI prints them on stderr). */
  onProgress?: (line: string) => void;
}

export interface Measurement {
  /** Tokens per wall-clock second (median run). */
  tokensPerSecond: number;
  medianMs: number;
  /** Tokens per second of this process's CPU time (median run): less sensitive to a busy machine. */
  tokensPerCpuSecond: number;
  cpuMedianMs: number;
  tokensPerRun: number;
  runsMs: number[];
}

export interface PolicyBenchConfigResult {
  name: PolicyBenchConfigName;
  config: ModelConfig;
  parameters: number;
  train: Measurement & { batch: number };
  sample: Measurement & { batch: number; promptLength: number };
  /** PyTorch training step, every cell of the sweep and the best, or null when skipped. */
  torchTrain: TorchSweep | null;
  /** PyTorch KV-cached sampling (same batch, prompt and lengths), or null when skipped. */
  torchSample: TorchSweep | null;
  /** Our tokens/s divided by the best PyTorch cell's (training step, wall clock), or null. */
  trainRatioToTorch: number | null;
  /** The same ratio per CPU-second (PyTorch's CPU time counts all its threads), or null. */
  trainCpuRatioToTorch: number | null;
  /** Our sampling tokens/s divided by the best PyTorch sampling cell's, or null. */
  sampleRatioToTorch: number | null;
  sampleCpuRatioToTorch: number | null;
  /** tfjs-wasm peak at this size's shapes and achieved GFLOP/s per phase (--roofline), or null. */
  roofline: ConfigRoofline | null;
}

export interface PolicyBenchResult {
  configs: PolicyBenchConfigResult[];
  peakRssMB: number;
  torch: {
    used: boolean;
    note: string;
    /** The cells swept, torch threads outer. */
    cells: TorchCell[];
    /** OpenBLAS tuning variables of this environment, passed to the children unchanged. */
    env: { OPENBLAS_CORETYPE: string | null; OPENBLAS_L2_SIZE: string | null };
  };
  /** OpenBLAS sgemm peaks via torch.mm (--roofline with torch), or null. */
  blasPeaks: BlasPeaks | null;
  machine: {
    cpus: number;
    cpuModel: string;
    node: string;
    loadAverageStart: number[];
    loadAverageEnd: number[];
    /** Which kernels ran the matrix products: OpenBLAS (native addon) or tfjs-wasm, and why. */
    kernels: NativeKernelStatus;
  };
  targets: typeof policyBenchTargets;
}

interface Timings {
  runsMs: number[];
  cpuMs: number[];
}

/** Runs `body` warmup + repeats times; returns the timed wall and CPU durations in ms. */
async function timeRuns(
  warmup: number,
  repeats: number,
  body: () => Promise<unknown> | unknown,
): Promise<Timings> {
  for (let i = 0; i < warmup; i++) await body();
  const timings: Timings = { runsMs: [], cpuMs: [] };
  for (let i = 0; i < repeats; i++) {
    const cpuStart = process.cpuUsage();
    const start = performance.now();
    await body();
    timings.runsMs.push(performance.now() - start);
    const cpu = process.cpuUsage(cpuStart);
    timings.cpuMs.push((cpu.user + cpu.system) / 1000);
  }
  return timings;
}

function measurement(tokensPerRun: number, timings: Timings): Measurement {
  const medianMs = median(timings.runsMs);
  const cpuMedianMs = median(timings.cpuMs);
  return {
    tokensPerSecond: (tokensPerRun / medianMs) * 1000,
    medianMs,
    tokensPerCpuSecond: (tokensPerRun / cpuMedianMs) * 1000,
    cpuMedianMs,
    tokensPerRun,
    runsMs: timings.runsMs,
  };
}

/** The script's model-shape arguments for a config. */
function modelArgs(config: ModelConfig, options: PolicyBenchOptions): string[] {
  return [
    ...['--d-model', config.dModel, '--layers', config.layers, '--heads', config.heads],
    ...['--context', config.contextLength, '--vocab', config.vocabSize],
    ...['--warmup', options.warmup, '--repeats', options.repeats],
  ].map(String);
}

function describeCell(cell: TorchCellResult): string {
  const label = `torch ${cell.torchThreads} × BLAS ${cell.blasThreads}`;
  if (!cell.ok) return `${label}: ${cell.error}`;
  return `${label}: ${fmt(cell.measurement.tokensPerSecond)} tokens/s (median ${fmt(cell.measurement.medianMs)} ms)`;
}

/** B random sequences of T tokens, every prediction weighted 1. */
function trainingData(config: ModelConfig, batch: number, rng: Rng): Datum[] {
  return Array.from({ length: batch }, () => ({
    tokens: Array.from({ length: config.contextLength }, () => rng.int(0, config.vocabSize - 1)),
    weights: new Array(config.contextLength - 1).fill(1),
  }));
}

async function benchConfig(
  name: PolicyBenchConfigName,
  options: PolicyBenchOptions,
  runner: TorchRunner | null,
  blasPeaks: BlasPeaks | null,
): Promise<PolicyBenchConfigResult> {
  const config = policyBenchConfigs[name];
  const progress = options.onProgress ?? (() => {});
  const tokenizer = new CharTokenizer(
    Array.from({ length: config.vocabSize - 3 }, (_, i) => String.fromCharCode(0x21 + i)),
  );
  const backend = await EmbeddedBackend.create(config, tokenizer, 1);
  const rng = new Rng(7);
  try {
    const data = trainingData(config, options.trainBatch, rng);
    // The two halves of each step are timed too, for the roofline (the last `repeats` are the timed runs).
    const forwardBackwardMs: number[] = [];
    const optimizerMs: number[] = [];
    const trainRuns = await timeRuns(options.warmup, options.repeats, async () => {
      const start = performance.now();
      await backend.forwardBackward(data, 'cross_entropy');
      const middle = performance.now();
      await backend.optimStep({ learningRate: 1e-3, weightDecay: 0, gradClip: 0 });
      forwardBackwardMs.push(middle - start);
      optimizerMs.push(performance.now() - middle);
    });
    const train = {
      ...measurement(options.trainBatch * config.contextLength, trainRuns),
      batch: options.trainBatch,
    };
    progress(
      `${name}: train step  ${fmt(train.tokensPerSecond)} tokens/s (median ${fmt(train.medianMs)} ms; ${fmt(train.tokensPerCpuSecond)} per CPU-second)`,
    );

    const promptLength = 8;
    const promptCount = 8;
    const n = Math.max(1, Math.round(options.sampleBatch / promptCount));
    const prompts = Array.from({ length: promptCount }, () => [
      tokenizer.bos,
      ...Array.from({ length: promptLength - 1 }, () => rng.int(3, config.vocabSize - 1)),
    ]);
    const noEos = Object.assign(Object.create(tokenizer), { eos: -1 }) as CharTokenizer;
    let seed = 0;
    let generated = 0;
    const sampleRuns = await timeRuns(options.warmup, options.repeats, () => {
      const result = sampleWithKvCache(backend.model, noEos, prompts, {
        n,
        temperature: 1,
        topP: 1,
        maxTokens: config.contextLength,
        seed: seed++,
      });
      generated = result.flat().reduce((total, sample) => total + sample.tokens.length, 0);
    });
    const sample = { ...measurement(generated, sampleRuns), batch: promptCount * n, promptLength };
    progress(
      `${name}: sampling    ${fmt(sample.tokensPerSecond)} tokens/s (batch ${sample.batch}; ${fmt(sample.tokensPerCpuSecond)} per CPU-second)`,
    );

    let roofline: ConfigRoofline | null = null;
    if (options.roofline) {
      const wasm = measureWasmMatmuls(
        modelMatmulShapes(config, options.trainBatch, options.sampleBatch),
        options.repeats,
      );
      for (const rate of wasm)
        progress(`${name}: tfjs-wasm ${rate.label}: ${rate.gflops.toFixed(1)} GFLOP/s`);
      const wasmPeakGflops = Math.max(...wasm.map((rate) => rate.gflops));
      const sequences = data.map((datum) => datum.tokens);
      const forwardRuns = await timeRuns(options.warmup, options.repeats, () => backend.forward(sequences));
      const times = {
        forward: median(forwardRuns.runsMs),
        forwardBackward: median(forwardBackwardMs.slice(-options.repeats)),
        optimizer: median(optimizerMs.slice(-options.repeats)),
      };
      const phases = phaseRooflines(
        rooflinePhases(
          trainStepFlops(config, options.trainBatch, config.contextLength),
          times,
          train.medianMs,
          {
            flops: samplingFlops(config, promptCount, promptLength, sample.batch, generated / sample.batch),
            medianMs: sample.medianMs,
          },
        ),
        wasmPeakGflops,
        blasPeaks ? (bestBlasPeak(blasPeaks)?.gflops ?? null) : null,
      );
      for (const phase of phases)
        progress(
          `${name}: ${phase.phase.padEnd(10)} ${phase.gflops.toFixed(1)} GFLOP/s (${(100 * phase.fractionOfWasmPeak).toFixed(0)}% of the tfjs-wasm peak)`,
        );
      roofline = { wasm, wasmPeakGflops, phases };
    }

    const { torchTrain, torchSample } = runner
      ? torchBaselines(runner, name, options, { promptCount, samples: n, promptLength }, progress)
      : { torchTrain: null, torchSample: null };
    const bestTrain = torchTrain?.best?.measurement ?? null;
    const bestSample = torchSample?.best?.measurement ?? null;
    return {
      name,
      config,
      parameters: parameterCount(config),
      train,
      sample,
      torchTrain,
      torchSample,
      trainRatioToTorch: bestTrain ? train.tokensPerSecond / bestTrain.tokensPerSecond : null,
      trainCpuRatioToTorch: bestTrain ? train.tokensPerCpuSecond / bestTrain.tokensPerCpuSecond : null,
      sampleRatioToTorch: bestSample ? sample.tokensPerSecond / bestSample.tokensPerSecond : null,
      sampleCpuRatioToTorch: bestSample ? sample.tokensPerCpuSecond / bestSample.tokensPerCpuSecond : null,
      roofline,
    };
  } finally {
    backend.dispose();
  }
}

/** The PyTorch training step and sampling at this size, every cell of the thread sweep. */
function torchBaselines(
  runner: TorchRunner,
  name: PolicyBenchConfigName,
  options: PolicyBenchOptions,
  sampling: { promptCount: number; samples: number; promptLength: number },
  progress: (line: string) => void,
): { torchTrain: TorchSweep; torchSample: TorchSweep } {
  const cells = sweepCells(options.torchThreads, options.blasThreads);
  const base = modelArgs(policyBenchConfigs[name], options);
  const onCell = (what: string) => (cell: TorchCellResult) =>
    progress(`${name}: torch ${what} ${describeCell(cell)}`);
  const trainArgs = [...base, '--mode', 'train', '--batch', String(options.trainBatch)];
  const sampleArgs = [
    ...base,
    ...['--mode', 'sample', '--prompts', sampling.promptCount, '--samples', sampling.samples],
    ...['--prompt-length', sampling.promptLength],
  ].map(String);
  return {
    torchTrain: runTorchSweep(runner, trainArgs, cells, process.env, onCell('train')),
    torchSample: runTorchSweep(runner, sampleArgs, cells, process.env, onCell('sample')),
  };
}

export const fmt = (value: number) =>
  value >= 100 ? Math.round(value).toLocaleString('en-US') : value.toFixed(1);

/** Runs every configured size; progress lines through options.onProgress. */
export async function runPolicyBench(options: PolicyBenchOptions): Promise<PolicyBenchResult> {
  await initRuntime('wasm');
  const loadAverageStart = os.loadavg();
  const torch = options.python
    ? torchAvailability(options.python)
    : { available: false, note: '--no-torch given' };
  if (!torch.available) options.onProgress?.(`PyTorch baseline skipped: ${torch.note}`);
  const runner =
    torch.available && options.python ? (options.torchRunner ?? spawnTorchScript(options.python)) : null;
  let blasPeaks: BlasPeaks | null = null;
  if (options.roofline && runner) {
    const models = options.configs.map((name) => policyBenchConfigs[name]);
    blasPeaks = measureBlasPeaks(runner, models, options.trainBatch, os.cpus().length, options.repeats);
    for (const peak of [blasPeaks.oneThread, blasPeaks.allCores])
      if (peak)
        options.onProgress?.(
          `OpenBLAS sgemm, ${peak.torchThreads} thread(s): ${peak.gflops.toFixed(1)} GFLOP/s`,
        );
    for (const error of blasPeaks.errors) options.onProgress?.(error);
  }
  const configs: PolicyBenchConfigResult[] = [];
  for (const name of options.configs) configs.push(await benchConfig(name, options, runner, blasPeaks));
  return {
    configs,
    peakRssMB: process.resourceUsage().maxRSS / 1024,
    torch: {
      used: runner !== null,
      note: torch.note,
      cells: sweepCells(options.torchThreads, options.blasThreads),
      env: {
        OPENBLAS_CORETYPE: process.env.OPENBLAS_CORETYPE ?? null,
        OPENBLAS_L2_SIZE: process.env.OPENBLAS_L2_SIZE ?? null,
      },
    },
    blasPeaks,
    machine: {
      cpus: os.cpus().length,
      cpuModel: os.cpus()[0]?.model ?? 'unknown',
      node: process.version,
      loadAverageStart,
      loadAverageEnd: os.loadavg(),
      kernels: nativeKernelStatus(),
    },
    targets: policyBenchTargets,
  };
}
