// `curricula bench policy`: throughput of the embedded policy on this machine.
//
// For each model size and each worker count N (--workers, policy.workers), as medians over timed
// repetitions after untimed warm-ups (policy-bench-run.ts): a full training step (forward, backward,
// Adam) on B full-context sequences and KV-cached sampling of a batch of `sampleBatch` rows, on the same
// data and prompts for every N. Optionally the same training step and the same KV-cached sampling in
// PyTorch (bench/torch_baseline.py, CPU), swept over torch threads × OpenBLAS threads (torch-sweep.ts),
// once per size; every N gets its ratios against the best cell. Optionally (--roofline) peak
// matrix-product rates and achieved GFLOP/s per phase and N (roofline.ts).
// Peak RSS is process.resourceUsage().maxRSS of this process, worker threads included (the PyTorch
// children are not).

import os from 'node:os';
import { Rng } from '../core/rng.ts';
import { type ModelConfig, parameterCount } from '../policy/model-config.ts';
import { fmt, type Measurement } from './bench-timing.ts';
import {
  type PolicyBenchConfigName,
  policyBenchConfigs,
  policyBenchTargets,
} from './policy-bench-configs.ts';
import {
  measureWorkers,
  samplePromptCount,
  samplePromptLength,
  samplingPrompts,
  trainingData,
} from './policy-bench-run.ts';
import {
  type BlasPeaks,
  bestBlasPeak,
  type MatmulRate,
  measureBlasPeaks,
  measureWasmMatmuls,
  modelMatmulShapes,
  type PhaseRoofline,
  phaseRooflines,
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

export { fmt, type Measurement } from './bench-timing.ts';
export { median } from './median.ts';
export {
  type PolicyBenchConfigName,
  parseBenchConfigs,
  policyBenchConfigs,
  policyBenchTargets,
} from './policy-bench-configs.ts';
export { torchAvailability } from './torch-sweep.ts';

import { type NativeKernelStatus, nativeKernelStatus } from '../policy/native-kernels.ts';
import type { NativeModelProfile } from '../policy/native-model.ts';
import type { EngineThreads, TrainEngine } from '../policy/parallel-options.ts';
import { initRuntime } from '../policy/runtime.ts';

export interface PolicyBenchOptions {
  configs: PolicyBenchConfigName[];
  /** Worker counts measured (policy.workers; 1 = in process), in this order. */
  workers: number[];
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
  /** policy.engine of our side: 'tfjs' (default) or 'native' (native/model.c's forward and backward). */
  engine?: TrainEngine;
  /** policy.threads of the native engine: a count, or 'auto' (default: the cores per worker). */
  engineThreads?: EngineThreads;
  /** Runs the PyTorch script; the default spawns `python`. Tests inject a stub. */
  torchRunner?: TorchRunner;
  /** One line per finished measurement (the CLI prints them on stderr). */
  onProgress?: (line: string) => void;
}

/** One worker count at one size: our measurements and their ratios to the best PyTorch cells. */
export interface PolicyBenchWorkersResult {
  workers: number;
  train: Measurement & { batch: number };
  sample: Measurement & { batch: number; promptLength: number };
  /** Our tokens/s divided by the best PyTorch cell's (training step, wall clock), or null. */
  trainRatioToTorch: number | null;
  /** The same ratio per CPU-second (both sides count every thread of their process), or null. */
  trainCpuRatioToTorch: number | null;
  /** Our sampling tokens/s divided by the best PyTorch sampling cell's, or null. */
  sampleRatioToTorch: number | null;
  sampleCpuRatioToTorch: number | null;
  /** Achieved GFLOP/s per phase (--roofline), or null. */
  phases: PhaseRoofline[] | null;
  /** The native engine's threads per replica, or null on tfjs. */
  engineThreads: number | null;
  /** native/model.c's profile of the timed steps (--roofline, native engine, 1 worker), or null. */
  nativePhases: NativePhase[] | null;
}

/** One phase of native/model.c's pass over the timed training steps (model-profile.h). */
export interface NativePhase {
  phase: string;
  /** Milliseconds per step, summed over the pass's threads. */
  msPerStep: number;
  /** Its share of all the pass's thread time. */
  share: number;
  /** Matrix-product GFLOP/s per thread (null for phases without products). */
  gflops: number | null;
  /** gflops over one thread's matrix-product peak at this size's shapes (the `wasm` rates: OpenBLAS
   * sgemm through tf.matMul where the native kernels are active), or null. */
  fractionOfPeak: number | null;
}

/** The native profile as per-step phases, their shares and (for products) GFLOP/s against the peak. */
export function nativePhaseTable(profile: NativeModelProfile, peakGflops: number | null): NativePhase[] {
  const entries = Object.entries(profile.phases);
  const total = entries.reduce((sum, [, phase]) => sum + phase.seconds, 0);
  return entries.map(([phase, { seconds, flops }]) => {
    const gflops = flops > 0 && seconds > 0 ? flops / seconds / 1e9 : null;
    return {
      phase,
      msPerStep: (1000 * seconds) / Math.max(1, profile.calls),
      share: total > 0 ? seconds / total : 0,
      gflops,
      fractionOfPeak: gflops !== null && peakGflops ? gflops / peakGflops : null,
    };
  });
}

export interface PolicyBenchConfigResult {
  name: PolicyBenchConfigName;
  config: ModelConfig;
  parameters: number;
  /** One entry per worker count, in the order of options.workers. */
  runs: PolicyBenchWorkersResult[];
  /** PyTorch training step, every cell of the sweep and the best, or null when skipped. */
  torchTrain: TorchSweep | null;
  /** PyTorch KV-cached sampling (same batch, prompt and lengths), or null when skipped. */
  torchSample: TorchSweep | null;
  /** tf.matMul rates at this size's shapes, one thread (--roofline): the native kernel when active. */
  wasm: { rates: MatmulRate[]; peakGflops: number } | null;
}

export interface PolicyBenchResult {
  configs: PolicyBenchConfigResult[];
  /** policy.engine of our training step. */
  engine: TrainEngine;
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

/** `ours / best`, or null when PyTorch did not run. */
function ratio(ours: number, best: number | undefined): number | null {
  return best === undefined ? null : ours / best;
}

async function benchConfig(
  name: PolicyBenchConfigName,
  options: PolicyBenchOptions,
  runner: TorchRunner | null,
  blasPeaks: BlasPeaks | null,
): Promise<PolicyBenchConfigResult> {
  const config = policyBenchConfigs[name];
  const progress = options.onProgress ?? (() => {});
  // The same data and prompts for every worker count.
  const rng = new Rng(7);
  const input = {
    data: trainingData(config, options.trainBatch, rng),
    prompts: samplingPrompts(config, rng, 1),
  };
  let wasm: PolicyBenchConfigResult['wasm'] = null;
  if (options.roofline) {
    const rates = measureWasmMatmuls(
      modelMatmulShapes(config, options.trainBatch, options.sampleBatch),
      options.repeats,
    );
    for (const rate of rates) progress(`${name}: tf.matMul ${rate.label}: ${rate.gflops.toFixed(1)} GFLOP/s`);
    wasm = { rates, peakGflops: Math.max(...rates.map((rate) => rate.gflops)) };
  }
  const measured = [];
  for (const workers of options.workers) {
    measured.push(
      await measureWorkers(
        name,
        config,
        workers,
        input,
        { ...options, onWarning: (message) => progress(`warning: ${message}`) },
        progress,
      ),
    );
  }
  const n = Math.max(1, Math.round(options.sampleBatch / samplePromptCount));
  const { torchTrain, torchSample } = runner
    ? torchBaselines(runner, name, options, { promptCount: samplePromptCount, samples: n }, progress)
    : { torchTrain: null, torchSample: null };
  const bestTrain = torchTrain?.best?.measurement;
  const bestSample = torchSample?.best?.measurement;
  const blasPeak = blasPeaks ? (bestBlasPeak(blasPeaks)?.gflops ?? null) : null;
  const runs = measured.map(({ workers, train, sample, phases, engineThreads, nativePhases }) => {
    const rooflines = phases && wasm ? phaseRooflines(phases, wasm.peakGflops, blasPeak) : null;
    for (const phase of rooflines ?? [])
      progress(
        `${name}, ${workers} worker${workers === 1 ? '' : 's'}: ${phase.phase.padEnd(10)} ${phase.gflops.toFixed(1)} GFLOP/s (${(100 * phase.fractionOfWasmPeak).toFixed(0)}% of one thread's tf.matMul peak)`,
      );
    return {
      workers,
      train,
      sample,
      trainRatioToTorch: ratio(train.tokensPerSecond, bestTrain?.tokensPerSecond),
      trainCpuRatioToTorch: ratio(train.tokensPerCpuSecond, bestTrain?.tokensPerCpuSecond),
      sampleRatioToTorch: ratio(sample.tokensPerSecond, bestSample?.tokensPerSecond),
      sampleCpuRatioToTorch: ratio(sample.tokensPerCpuSecond, bestSample?.tokensPerCpuSecond),
      phases: rooflines,
      engineThreads,
      nativePhases: nativePhases ? nativePhaseTable(nativePhases, wasm?.peakGflops ?? null) : null,
    };
  });
  return { name, config, parameters: parameterCount(config), runs, torchTrain, torchSample, wasm };
}

/** The PyTorch training step and sampling at this size, every cell of the thread sweep. */
function torchBaselines(
  runner: TorchRunner,
  name: PolicyBenchConfigName,
  options: PolicyBenchOptions,
  sampling: { promptCount: number; samples: number },
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
    ...['--prompt-length', samplePromptLength],
  ].map(String);
  return {
    torchTrain: runTorchSweep(runner, trainArgs, cells, process.env, onCell('train')),
    torchSample: runTorchSweep(runner, sampleArgs, cells, process.env, onCell('sample')),
  };
}

/** Runs every configured size and worker count; progress lines through options.onProgress. */
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
    engine: options.engine ?? 'tfjs',
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
