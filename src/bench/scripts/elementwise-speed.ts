// A/B speed of the native elementwise kernels (native-elementwise.ts) in one process, alternating native
// and stock wasm (setNativeElementwise; the native matmul stays on) and reporting medians:
// (1) micro-benchmarks of the common broadcast patterns at the base model's shapes (kernel + allocation,
// no read-back), (2) the base train step
// (forwardBackward + Adam on 8 × 128 tokens, as `bench policy`), (3) KV-cached sampling at batch 64 from
// 8-token prompts to the full context. Run:
//
//   node --import tsx src/bench/scripts/elementwise-speed.ts [rounds]
//
// On a shared machine, compare only the two columns of one run; the load average is printed.
import { loadavg } from 'node:os';
import { pathToFileURL } from 'node:url';
import { Rng } from '../../core/rng.ts';
import { EmbeddedBackend } from '../../policy/embedded-backend.ts';
import {
  nativeBinaryCount,
  nativeReduceCount,
  setNativeElementwise,
} from '../../policy/native-elementwise.ts';
import { nativeKernelsAvailable } from '../../policy/native-kernels.ts';
import { tf } from '../../policy/runtime.ts';
import { sampleWithKvCache } from '../../policy/sampler.ts';
import { CharTokenizer } from '../../policy/tokenizer.ts';
import { policyBenchConfigs } from '../policy-bench-configs.ts';

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** Median ms of `body` for native and stock, over `rounds` alternating rounds of `repeats` runs each. */
async function ab(rounds: number, repeats: number, body: () => unknown): Promise<[number, number]> {
  const times: [number[], number[]] = [[], []];
  for (const on of [true, false]) {
    setNativeElementwise(on);
    await body(); // warm-up
  }
  for (let round = 0; round < rounds; round++)
    for (const [index, on] of [true, false].entries()) {
      setNativeElementwise(on);
      for (let i = 0; i < repeats; i++) {
        const start = performance.now();
        await body();
        times[index].push(performance.now() - start);
      }
    }
  setNativeElementwise(true);
  return [median(times[0]), median(times[1])];
}

function report(label: string, [native, stock]: [number, number]): void {
  const digits = native < 1 ? 4 : 1;
  console.log(
    `${label.padEnd(44)} native ${native.toFixed(digits).padStart(8)} ms  wasm ${stock.toFixed(digits).padStart(8)} ms  ×${(stock / native).toFixed(2)}`,
  );
}

async function microBenchmarks(rounds: number): Promise<void> {
  // Standard-normal values from a seeded Rng (as the kernel tests' randomArray, which is test support).
  const tensor = (shape: number[], seed: number) => {
    const rng = new Rng(seed);
    const size = shape.reduce((p, n) => p * n, 1);
    return tf.tensor(
      Float32Array.from({ length: size }, () => rng.normal()),
      shape,
    );
  };
  const cases: [string, number[], number[], (a: tf.Tensor, b: tf.Tensor) => tf.Tensor][] = [
    ['mul same shape [1024, 128]', [1024, 128], [1024, 128], tf.mul],
    ['add bias [1024, 512] + [512]', [1024, 512], [512], tf.add],
    ['sub trailing [1024, 128] - [1024, 1]', [1024, 128], [1024, 1], tf.sub],
    ['mul scalar [1024, 128] · []', [1024, 128], [], tf.mul],
    ['mul sampler [64,4,1,32] · [64,4,128,32]', [64, 4, 1, 32], [64, 4, 128, 32], tf.mul],
    ['div trailing [8,4,128,128] / [8,4,128,1]', [8, 4, 128, 128], [8, 4, 128, 1], tf.div],
  ];
  for (const [label, aShape, bShape, op] of cases) {
    const a = tensor(aShape, 1);
    const b = tensor(bShape, 2);
    report(label, await ab(rounds, 100, () => op(a, b).dispose()));
    a.dispose();
    b.dispose();
  }
  const x = tensor([64, 4, 128, 32], 3);
  report('sum last axis [64,4,128,32]', await ab(rounds, 100, () => tf.sum(x, -1).dispose()));
  const y = tensor([1024, 128], 4);
  report('mean last axis keepDims [1024,128]', await ab(rounds, 100, () => tf.mean(y, -1, true).dispose()));
  report('max last axis [1024,128]', await ab(rounds, 100, () => tf.max(y, -1).dispose()));
  x.dispose();
  y.dispose();
}

async function modelBenchmarks(rounds: number): Promise<void> {
  const config = policyBenchConfigs.base;
  const tokenizer = new CharTokenizer(
    Array.from({ length: config.vocabSize - 3 }, (_, i) => String.fromCharCode(0x21 + i)),
  );
  const backend = await EmbeddedBackend.create(config, tokenizer, 1);
  const rng = new Rng(7);
  const data = Array.from({ length: 8 }, () => ({
    tokens: Array.from({ length: config.contextLength }, () => rng.int(0, config.vocabSize - 1)),
    weights: new Array(config.contextLength - 1).fill(1),
  }));
  const counts = [nativeBinaryCount(), nativeReduceCount()];
  const step = async () => {
    await backend.forwardBackward(data, 'cross_entropy');
    await backend.optimStep({ learningRate: 1e-3, weightDecay: 0, gradClip: 0 });
  };
  report('base train step (8 × 128 tokens)', await ab(rounds, 3, step));
  console.log(
    `  native calls so far: ${nativeBinaryCount() - counts[0]} binary, ${nativeReduceCount() - counts[1]} reductions`,
  );
  const prompts = Array.from({ length: 8 }, () => [
    tokenizer.bos,
    ...Array.from({ length: 7 }, () => rng.int(3, config.vocabSize - 1)),
  ]);
  const noEos = Object.assign(Object.create(tokenizer), { eos: -1 }) as CharTokenizer;
  let seed = 0;
  const sample = () =>
    sampleWithKvCache(backend.model, noEos, prompts, {
      n: 8,
      temperature: 1,
      topP: 1,
      maxTokens: config.contextLength,
      seed: seed++,
    });
  report('KV-cached sampling, batch 64 to T = 128', await ab(Math.max(1, Math.ceil(rounds / 2)), 1, sample));
  backend.dispose();
}

async function main(): Promise<void> {
  const rounds = Number(process.argv[2] ?? 5);
  const { initRuntime } = await import('../../policy/runtime.ts');
  await initRuntime('wasm');
  if (!nativeKernelsAvailable()) throw new Error('the native addon is not loaded');
  console.log(
    `load average ${loadavg()
      .map((v) => v.toFixed(2))
      .join(' ')}; ${rounds} alternating rounds`,
  );
  await microBenchmarks(rounds);
  await modelBenchmarks(rounds);
  console.log(
    `load average ${loadavg()
      .map((v) => v.toFixed(2))
      .join(' ')}`,
  );
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) await main();
