// A/B/C of the KV-cached sampler: all native kernels, native matmul with the tfjs sampler ops (the path
// before sampler-native.ts), and plain wasm, interleaved in one process (the
// `bench policy` sampling workload: base config, 8 prompts × 8 samples = batch 64, 8-token prompts,
// decoding to the context length). Prints tokens/s per run and the medians; `--profile` prints the
// per-kernel times of one native run (tf.profile).
//   npx tsx src/bench/scripts/sampler-ab.ts [--runs 5] [--profile] [--only native|matmul-only|wasm]

import { Rng } from '../../core/rng.ts';
import { EmbeddedBackend } from '../../policy/embedded-backend.ts';
import { setNativeKernels } from '../../policy/native-kernels.ts';
import { tf } from '../../policy/runtime.ts';
import { sampleWithKvCache } from '../../policy/sampler.ts';
import { setNativeSamplerKernels } from '../../policy/sampler-native.ts';
import { CharTokenizer } from '../../policy/tokenizer.ts';
import { policyBenchConfigs } from '../policy-bench-configs.ts';

const args = process.argv.slice(2);
const runs = Number(args[args.indexOf('--runs') + 1] ?? 5) || 5;
const config = policyBenchConfigs.base;
const tokenizer = new CharTokenizer(
  Array.from({ length: config.vocabSize - 3 }, (_, i) => String.fromCharCode(0x21 + i)),
);
const backend = await EmbeddedBackend.create(config, tokenizer, 1);
const rng = new Rng(7);
const prompts = Array.from({ length: 8 }, () => [
  tokenizer.bos,
  ...Array.from({ length: 7 }, () => rng.int(3, config.vocabSize - 1)),
]);
const noEos = Object.assign(Object.create(tokenizer), { eos: -1 }) as CharTokenizer;

function sampleOnce(seed: number): number {
  const result = sampleWithKvCache(backend.model, noEos, prompts, {
    n: 8,
    temperature: 1,
    topP: 1,
    maxTokens: config.contextLength,
    seed,
  });
  return result.flat().reduce((total, sample) => total + sample.tokens.length, 0);
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
/** The three paths: everything native; native matmul with the tfjs sampler ops (before); plain wasm. */
const modes = {
  native: () => {
    setNativeKernels(true);
    setNativeSamplerKernels(true);
  },
  'matmul-only': () => {
    setNativeKernels(true);
    setNativeSamplerKernels(false);
  },
  wasm: () => {
    setNativeKernels(false);
    setNativeSamplerKernels(true);
  },
};
type Mode = keyof typeof modes;
// --only native: one path (e.g. under node --cpu-prof).
const only = args.includes('--only') ? (args[args.indexOf('--only') + 1] as Mode) : undefined;
const names = only ? [only] : (Object.keys(modes) as Mode[]);
const rates = new Map<Mode, number[]>(names.map((mode) => [mode, []]));
// Per CPU-second too: steadier than wall time when other processes share the cores.
const cpuRates = new Map<Mode, number[]>(names.map((mode) => [mode, []]));
for (const mode of names) {
  modes[mode]();
  sampleOnce(0); // warm-up
}
for (let run = 0; run < runs; run++) {
  for (const mode of names) {
    modes[mode]();
    const start = performance.now();
    const cpuStart = process.cpuUsage();
    const tokens = sampleOnce(run + 1);
    const rate = tokens / ((performance.now() - start) / 1000);
    const cpu = process.cpuUsage(cpuStart);
    const cpuRate = tokens / ((cpu.user + cpu.system) / 1e6);
    rates.get(mode)?.push(rate);
    cpuRates.get(mode)?.push(cpuRate);
    console.log(
      `run ${run} ${mode.padEnd(11)}: ${rate.toFixed(0)} tok/s, ${cpuRate.toFixed(0)} per CPU-s (${tokens} tokens)`,
    );
  }
}
for (const mode of names)
  console.log(
    `median ${mode.padEnd(11)}: ${median(rates.get(mode) ?? []).toFixed(0)} tok/s, ${median(cpuRates.get(mode) ?? []).toFixed(0)} per CPU-s`,
  );
modes.native();

if (args.includes('--profile')) {
  const profile = await tf.profile(() => {
    sampleOnce(99);
  });
  const byKernel = new Map<string, { ms: number; calls: number }>();
  for (const kernel of profile.kernels) {
    const entry = byKernel.get(kernel.name) ?? { ms: 0, calls: 0 };
    entry.ms += kernel.kernelTimeMs as number;
    entry.calls++;
    byKernel.set(kernel.name, entry);
  }
  for (const [name, { ms, calls }] of [...byKernel].sort((a, b) => b[1].ms - a[1].ms))
    console.log(`${name.padEnd(28)} ${ms.toFixed(1).padStart(8)} ms ${String(calls).padStart(6)} calls`);
}
