// `curricula bench policy`: throughput of the embedded policy on this machine.
//
// For each model size it measures, as medians over timed repetitions after untimed warm-ups:
// - a full training step: EmbeddedBackend.forwardBackward('cross_entropy') + optimStep (Adam, lr 1e-3,
//   no weight decay, no clipping) on B full-context sequences of random tokens; tokens/s = B·T / step;
// - KV-cached sampling (sampleWithKvCache) of a batch of `sampleBatch` rows (8 prompts × n), temperature
//   1, from an 8-token prompt to the full context; tokens/s = generated tokens / wall time, prefill
//   included. EOS is disabled for the measurement so every row runs to the context limit and the batch
//   stays full (a trained model's early stops would only make the batch smaller);
// - optionally the same training step in PyTorch (bench/torch_baseline.py, CPU, 2 threads), for a ratio
//   measured in the same run.
// Peak RSS is process.resourceUsage().maxRSS of this process (the PyTorch child is not included).

import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Datum } from '../core/policy.ts';
import { Rng } from '../core/rng.ts';
import { EmbeddedBackend } from '../policy/embedded-backend.ts';
import { type ModelConfig, parameterCount } from '../policy/model-config.ts';
import {
  type PolicyBenchConfigName,
  policyBenchConfigs,
  policyBenchTargets,
} from './policy-bench-configs.ts';

export {
  type PolicyBenchConfigName,
  parseBenchConfigs,
  policyBenchConfigs,
  policyBenchTargets,
} from './policy-bench-configs.ts';

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
  torchThreads: number;
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

export interface TorchMeasurement {
  tokensPerSecond: number;
  medianMs: number;
  /** Per second of process CPU time, all threads together. */
  tokensPerCpuSecond: number;
  version: string;
  threads: number;
}

export interface PolicyBenchConfigResult {
  name: PolicyBenchConfigName;
  config: ModelConfig;
  parameters: number;
  train: Measurement & { batch: number };
  sample: Measurement & { batch: number; promptLength: number };
  /** PyTorch training step, or null when skipped or failed. */
  torchTrain: TorchMeasurement | null;
  /** Our tokens/s divided by PyTorch's (training step, wall clock), or null. */
  trainRatioToTorch: number | null;
  /** The same ratio per CPU-second (PyTorch's CPU time counts all its threads), or null. */
  trainCpuRatioToTorch: number | null;
}

export interface PolicyBenchResult {
  configs: PolicyBenchConfigResult[];
  peakRssMB: number;
  torch: { used: boolean; note: string };
  machine: {
    cpus: number;
    cpuModel: string;
    node: string;
    loadAverageStart: number[];
    loadAverageEnd: number[];
  };
  targets: typeof policyBenchTargets;
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
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

const torchScript = path.join(path.dirname(fileURLToPath(import.meta.url)), '../../bench/torch_baseline.py');
/** Debian's python3-torch finds BLAS through libblas.so.3; OpenBLAS there is ~8x faster than reference. */
const openBlasDir = '/usr/lib/x86_64-linux-gnu/openblas-pthread';

/** Whether `python` can import torch; the reason when it cannot. */
export function torchAvailability(python: string): { available: boolean; note: string } {
  const probe = spawnSync(python, ['-c', 'import torch; print(torch.__version__)'], { encoding: 'utf8' });
  if (probe.error) return { available: false, note: `${python} not runnable (${probe.error.message})` };
  if (probe.status !== 0) return { available: false, note: `torch is not importable by ${python}` };
  return { available: true, note: `torch ${probe.stdout.trim()} via ${python}` };
}

function runTorchBaseline(
  python: string,
  config: ModelConfig,
  options: PolicyBenchOptions,
): TorchMeasurement | string {
  const args = [
    torchScript,
    ...['--d-model', config.dModel, '--layers', config.layers, '--heads', config.heads].map(String),
    ...['--context', config.contextLength, '--vocab', config.vocabSize, '--batch', options.trainBatch].map(
      String,
    ),
    ...['--warmup', options.warmup, '--repeats', options.repeats, '--threads', options.torchThreads].map(
      String,
    ),
  ];
  const env = { ...process.env };
  if (existsSync(openBlasDir))
    env.LD_LIBRARY_PATH = [openBlasDir, env.LD_LIBRARY_PATH].filter(Boolean).join(':');
  const run = spawnSync(python, args, { encoding: 'utf8', env, timeout: 30 * 60_000 });
  if (run.status !== 0)
    return `torch baseline failed: ${(run.stderr || run.error?.message || '').trim().slice(-300)}`;
  const parsed = JSON.parse(run.stdout.trim().split('\n').at(-1) ?? '{}');
  return {
    tokensPerSecond: parsed.tokensPerSecond,
    medianMs: parsed.stepMsMedian,
    tokensPerCpuSecond: parsed.tokensPerCpuSecond,
    version: parsed.torch,
    threads: parsed.threads,
  };
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
  torchUsable: boolean,
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
    const trainRuns = await timeRuns(options.warmup, options.repeats, async () => {
      await backend.forwardBackward(data, 'cross_entropy');
      await backend.optimStep({ learningRate: 1e-3, weightDecay: 0, gradClip: 0 });
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

    let torchTrain: TorchMeasurement | null = null;
    if (torchUsable && options.python) {
      const outcome = runTorchBaseline(options.python, config, options);
      if (typeof outcome === 'string') progress(`${name}: ${outcome}`);
      else {
        torchTrain = outcome;
        progress(
          `${name}: torch train ${fmt(outcome.tokensPerSecond)} tokens/s (median ${fmt(outcome.medianMs)} ms)`,
        );
      }
    }
    return {
      name,
      config,
      parameters: parameterCount(config),
      train,
      sample,
      torchTrain,
      trainRatioToTorch: torchTrain ? train.tokensPerSecond / torchTrain.tokensPerSecond : null,
      trainCpuRatioToTorch: torchTrain ? train.tokensPerCpuSecond / torchTrain.tokensPerCpuSecond : null,
    };
  } finally {
    backend.dispose();
  }
}

export const fmt = (value: number) =>
  value >= 100 ? Math.round(value).toLocaleString('en-US') : value.toFixed(1);

/** Validates size names (UserError listing the known ones). */
export async function runPolicyBench(options: PolicyBenchOptions): Promise<PolicyBenchResult> {
  await initRuntime('wasm');
  const loadAverageStart = os.loadavg();
  const torch = options.python
    ? torchAvailability(options.python)
    : { available: false, note: '--no-torch given' };
  if (!torch.available) options.onProgress?.(`PyTorch baseline skipped: ${torch.note}`);
  const configs: PolicyBenchConfigResult[] = [];
  for (const name of options.configs) configs.push(await benchConfig(name, options, torch.available));
  return {
    configs,
    peakRssMB: process.resourceUsage().maxRSS / 1024,
    torch: { used: torch.available, note: torch.note },
    machine: {
      cpus: os.cpus().length,
      cpuModel: os.cpus()[0]?.model ?? 'unknown',
      node: process.version,
      loadAverageStart,
      loadAverageEnd: os.loadavg(),
    },
    targets: policyBenchTargets,
  };
}
