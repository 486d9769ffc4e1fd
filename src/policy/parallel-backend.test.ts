// The worker-parallel backend against the in-process one it must agree with (N = 1), on the tiny model
// of the other policy tests. Worker threads take ~1-2 s each to start (tsx + tfjs + wasm), so one N = 2
// backend is shared by the agreement tests and only a few others are started.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UserError } from '../core/errors.ts';
import type { Datum, SampledSequence, SampleOptions } from '../core/policy.ts';
import { Rng } from '../core/rng.ts';
import { stubTokenizer, stubTokenizerFromJSON } from '../testing/policy/test-helpers.ts';
import { EmbeddedBackend } from './embedded-backend.ts';
import { ParallelEmbeddedBackend, PolicyWorkerError } from './parallel-backend.ts';
import { tf } from './runtime.ts';
import { sampleWithKvCache } from './sampler.ts';

const root = mkdtempSync(join(tmpdir(), 'curricula-parallel-'));
const config = { vocabSize: 12, dModel: 16, layers: 2, heads: 2, contextLength: 16 };
const tokenizer = stubTokenizer(12);
const tokenizerFactory = {
  module: new URL('../testing/policy/test-helpers.ts', import.meta.url).href,
  exportName: 'stubTokenizerFromJSON',
};
const optim = { learningRate: 3e-3, weightDecay: 0.1, gradClip: 1 };
const sampling: SampleOptions = { n: 3, temperature: 1, topP: 0.9, maxTokens: 6, seed: 5 };
const prompts = [[1, 3], [1, 4, 5], [1, 6], [1, 7, 8, 9], [1]];

/** Variable-length data with mixed-sign weights, zero on the first two positions (as in the N = 1 tests). */
function data(): Datum[] {
  const sequences = [
    [1, 3, 4, 5, 6, 7, 8, 9, 2],
    [1, 10, 11, 3, 2],
    [1, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 2],
    [1, 4, 4, 3, 9, 2],
    [1, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2],
  ];
  return sequences.map((tokens, row) => ({
    tokens,
    weights: tokens.slice(1).map((_, t) => (t < 2 ? 0 : (row % 2 === 1 ? -0.5 : 1) / (t + 1))),
  }));
}

function start(workers: number, seed = 1, extra: object = {}): Promise<ParallelEmbeddedBackend> {
  return ParallelEmbeddedBackend.create(config, tokenizer, seed, {
    workers,
    tokenizerFactory,
    onWarning: () => undefined,
    ...extra,
  });
}

/** ‖a − b‖ / ‖b‖ over all parameters together. */
function relativeDifference(a: Map<string, Float32Array>, b: Map<string, Float32Array>): number {
  expect([...a.keys()].sort()).toEqual([...b.keys()].sort());
  let difference = 0;
  let norm = 0;
  for (const [name, expected] of b) {
    const actual = a.get(name)!;
    for (let i = 0; i < expected.length; i++) {
      difference += (actual[i] - expected[i]) ** 2;
      norm += expected[i] ** 2;
    }
  }
  return Math.sqrt(difference / norm);
}

/**
 * Log-probs equal up to float32 rounding (1e-5 absolute, ~40 ulp at |logp| ≈ 2.5): a chunk of the batch
 * is a matrix product with fewer rows, and OpenBLAS's blocking may then sum in another order (it does with
 * OPENBLAS_CORETYPE=Haswell), so across worker counts the values are not bit-identical. A wrong split or
 * order would be off by far more.
 */
function expectCloseLogprobs(actual: number[][], expected: number[][]): void {
  expect(actual.map((row) => row.length)).toEqual(expected.map((row) => row.length));
  for (const [i, row] of actual.entries()) {
    for (const [t, value] of row.entries()) expect(Math.abs(value - expected[i][t])).toBeLessThan(1e-5);
  }
}

/** One short "training run": sample, forwardBackward, optimStep twice; everything it produced. */
async function run(backend: ParallelEmbeddedBackend) {
  const samples = [];
  const steps = [];
  for (let step = 0; step < 2; step++) {
    samples.push(await backend.sample(prompts, { ...sampling, seed: step }));
    const result = await backend.forwardBackward(data(), 'linear');
    steps.push({ loss: result.loss, logprobs: result.logprobs, ...(await backend.optimStep(optim)) });
  }
  return { samples, steps, hashes: await backend.weightHashes() };
}

describe('ParallelEmbeddedBackend (2 workers) against EmbeddedBackend', () => {
  let parallel: ParallelEmbeddedBackend;
  let single: EmbeddedBackend;
  beforeAll(async () => {
    [parallel, single] = await Promise.all([start(2), EmbeddedBackend.create(config, tokenizer, 1)]);
  });
  afterAll(async () => {
    await parallel.close();
    single.dispose();
    rmSync(root, { recursive: true, force: true });
  });

  it('starts two replicas with the same weights as the in-process model', async () => {
    const hashes = await parallel.weightHashes();
    expect(hashes).toHaveLength(2);
    expect(hashes[0]).toBe(hashes[1]);
    expect(await parallel.parameterValues()).toEqual(single.model.parameterValues());
  });

  it('forward gives the log-probs of one worker (up to float32 rounding)', async () => {
    const sequences = data().map((datum) => datum.tokens);
    expectCloseLogprobs(await parallel.forward(sequences), await single.forward(sequences));
  });

  it('forwardBackward splits by tokens and sums gradients to those of one worker (1e-5 relative)', async () => {
    const [many, one] = [
      await parallel.forwardBackward(data(), 'linear'),
      await single.forwardBackward(data(), 'linear'),
    ];
    expectCloseLogprobs(many.logprobs, one.logprobs);
    expect(many.tokens).toBe(one.tokens);
    expect(many.loss).toBeCloseTo(one.loss, 5);
    const gradients = await parallel.gradientValues();
    const expected = single.gradientValues();
    expect(relativeDifference(gradients, expected)).toBeLessThan(1e-5);
    // Per parameter too, so a missing small tensor cannot hide in the global norm.
    for (const [name, values] of expected) {
      expect(
        relativeDifference(new Map([[name, gradients.get(name)!]]), new Map([[name, values]])),
      ).toBeLessThan(1e-4);
    }
    // One optimizer step from the same sums: same norm, same step, and the replicas stay identical.
    const [stepMany, stepOne] = [await parallel.optimStep(optim), await single.optimStep(optim)];
    expect(stepMany.step).toBe(1);
    expect(stepOne.step).toBe(1);
    expect(Math.abs(stepMany.gradNorm - stepOne.gradNorm) / stepOne.gradNorm).toBeLessThan(1e-5);
    const hashes = await parallel.weightHashes();
    expect(hashes[0]).toBe(hashes[1]);
    expect(await parallel.gradientValues()).toEqual(new Map());
  });

  it('samples each prompt from its own seeded stream, whichever worker draws it', async () => {
    const result = await parallel.sample(prompts, sampling);
    expect(result.map((group) => group.length)).toEqual(prompts.map(() => sampling.n));
    // Independent check: each prompt alone, in process, on the replicas' weights, drawing from
    // Rng(p-th draw of Rng(seed)); a split-dependent stream (e.g. one Rng per worker) would differ.
    const copy = await EmbeddedBackend.fromContents(
      { config, weights: await parallel.parameterValues(), optimizer: null },
      tokenizer,
    );
    const seeds = new Rng(sampling.seed);
    const promptSeeds = prompts.map(() => seeds.nextUint32());
    const alone = prompts.map(
      (prompt, p) =>
        sampleWithKvCache(copy.model, tokenizer, [prompt], sampling, [new Rng(promptSeeds[p])])[0],
    );
    copy.dispose();
    // Tokens, text and stop reasons exactly; log-probs up to float32 rounding (expectCloseLogprobs).
    const exact = (groups: SampledSequence[][]) =>
      groups.map((group) => group.map(({ tokens, text, stopReason }) => ({ tokens, text, stopReason })));
    expect(exact(result)).toEqual(exact(alone));
    expectCloseLogprobs(
      result.flat().map((s) => s.logprobs),
      alone.flat().map((s) => s.logprobs),
    );
    expectCloseLogprobs(
      result.flat().map((s) => s.samplingLogprobs),
      alone.flat().map((s) => s.samplingLogprobs),
    );
  });

  it('saves weights and Adam state that load back, in process and into workers', async () => {
    const dir = join(root, 'checkpoint');
    await parallel.save(dir);
    const loaded = await EmbeddedBackend.load(dir, { tokenizerFromJSON: stubTokenizerFromJSON });
    expect(loaded.model.parameterValues()).toEqual(await parallel.parameterValues());
    expect(loaded.optimizer.step).toBe(1);
    const reloaded = await ParallelEmbeddedBackend.load(dir, {
      workers: 2,
      tokenizerFactory,
      onWarning: () => undefined,
    });
    try {
      expect(await reloaded.weightHashes()).toEqual(await parallel.weightHashes());
      // The restored Adam state gives the next step exactly as the original replicas take it.
      await Promise.all(
        [reloaded, parallel].map((backend) => backend.forwardBackward(data(), 'cross_entropy')),
      );
      const [a, b] = await Promise.all([reloaded, parallel].map((backend) => backend.optimStep(optim)));
      expect(a).toEqual(b);
      expect(await reloaded.weightHashes()).toEqual(await parallel.weightHashes());
    } finally {
      await reloaded.close();
      loaded.dispose();
    }
  });

  it('refuses bad input on the main thread with the N = 1 message', async () => {
    const bad = [...data(), { tokens: [1, 99], weights: [1] }];
    await expect(parallel.forwardBackward(bad, 'linear')).rejects.toThrow(UserError);
    await expect(parallel.forwardBackward(bad, 'linear')).rejects.toThrow(
      'forwardBackward: datum 5: token 1 is 99, outside the vocabulary [0, 12)',
    );
    await expect(parallel.sample([...prompts, [1, 12]], sampling)).rejects.toThrow(
      'sample: prompt 5 has token id 12 outside the vocabulary [0, 12)',
    );
  });
});

describe('ParallelEmbeddedBackend determinism and failures', () => {
  it('two runs with 2 workers and the same seed are bit-identical', async () => {
    const first = await start(2, 7);
    const a = await run(first).finally(() => first.close());
    const second = await start(2, 7);
    const b = await run(second).finally(() => second.close());
    expect(b).toEqual(a);
    expect(a.hashes[0]).toBe(a.hashes[1]);
  });

  it("sums the replicas' gradients in worker order (3 workers), and applies the one sum everywhere", async () => {
    const backend = await start(3, 3);
    try {
      await backend.forwardBackward(data(), 'linear');
      const replicas = await backend.replicaGradientValues();
      expect(replicas.every((gradients) => gradients.size > 0)).toBe(true);
      // By hand: ((g0 + g1) + g2) in float32, parameter by parameter.
      const expected = new Map<string, Float32Array>();
      for (const [name, g0] of replicas[0]) {
        const sum = Float32Array.from(g0);
        for (const replica of replicas.slice(1)) {
          const g = replica.get(name)!;
          for (let i = 0; i < sum.length; i++) sum[i] += g[i];
        }
        expected.set(name, sum);
      }
      expect(await backend.gradientValues()).toEqual(expected);
      // optimStep sums in shared memory (gradient-exchange.ts): its step must be exactly AdamW applied,
      // in process, to the by-hand sum from the same weights.
      const reference = await EmbeddedBackend.create(config, tokenizer, 3);
      const tensors = new Map(
        [...reference.model.params].map(([name, variable]) => [
          name,
          tf.tensor(expected.get(name)!, variable.shape, 'float32'),
        ]),
      );
      const expectedStep = reference.optimizer.apply(reference.model.params, tensors, optim);
      for (const tensor of tensors.values()) tensor.dispose();
      expect(await backend.optimStep(optim)).toEqual(expectedStep);
      expect(await backend.parameterValues()).toEqual(reference.model.parameterValues());
      reference.dispose();
      expect(new Set(await backend.weightHashes()).size).toBe(1);
    } finally {
      await backend.close();
    }
  });

  it('a worker that throws fails the call with an error naming it; one that dies closes the backend', async () => {
    const backend = await start(2, 1, { fault: { worker: 1, method: 'forwardBackward', kind: 'throw' } });
    try {
      const call = backend.forwardBackward(data(), 'linear');
      await expect(call).rejects.toThrow(PolicyWorkerError);
      await expect(call).rejects.toThrow(
        'policy worker 1 of 2 failed in forwardBackward: Error: injected fault in forwardBackward',
      );
      // Still usable after an exception (worker 0 too: the failing call waited for it).
      expect(await backend.forward([[1, 3, 4]])).toHaveLength(1);
      await backend.killWorkerForTest(0);
      await expect(backend.forward([[1, 3, 4]])).rejects.toThrow('policy worker 0 of 2 exited with code 1');
      await expect(backend.optimStep(optim)).rejects.toThrow('policy worker 0 of 2 exited');
    } finally {
      await backend.close();
    }
  });

  it('a worker that fails in the gradient exchange fails optimStep naming it, frees the others, and closes the backend', async () => {
    const backend = await start(2, 1, { fault: { worker: 1, method: 'allReduceAndStep', kind: 'throw' } });
    try {
      await backend.forwardBackward(data(), 'linear');
      // Worker 0 is waiting for worker 1 in the exchange: without the abort this call would hang.
      const call = backend.optimStep(optim);
      await expect(call).rejects.toThrow(PolicyWorkerError);
      await expect(call).rejects.toThrow(
        'optimStep failed, the policy workers can no longer be kept identical: policy worker 1 of 2 failed in allReduceAndStep: Error: injected fault in allReduceAndStep',
      );
      await expect(backend.forward([[1, 3, 4]])).rejects.toThrow('can no longer be kept identical');
    } finally {
      await backend.close();
    }
    expect(backend.liveWorkers).toBe(0);
  });

  it('a worker that exits mid-call fails that call naming it', async () => {
    const backend = await start(2, 1, { fault: { worker: 1, method: 'forward', kind: 'exit' } });
    try {
      await expect(backend.forward(data().map((datum) => datum.tokens))).rejects.toThrow(
        'policy worker 1 of 2 exited with code 3',
      );
    } finally {
      await backend.close();
    }
    expect(backend.liveWorkers).toBe(0);
  });

  it('a worker that runs out of memory fails the call naming it, and closes the backend', async () => {
    const backend = await start(2, 1, { fault: { worker: 1, method: 'forward', kind: 'oom' } });
    try {
      const call = backend.forward(data().map((datum) => datum.tokens));
      await expect(call).rejects.toThrow(PolicyWorkerError);
      await expect(call).rejects.toThrow(/^policy worker 1 of 2 crashed: .*out of memory/);
      await expect(backend.forward([[1, 3, 4]])).rejects.toThrow(/^policy worker 1 of 2 crashed/);
    } finally {
      await backend.close();
    }
    expect(backend.liveWorkers).toBe(0);
  });

  it('warns, and still works, with more workers than cores', async () => {
    const warnings: string[] = [];
    const cores = (await import('node:os')).availableParallelism();
    const backend = await start(cores + 1, 1, { onWarning: (message: string) => warnings.push(message) });
    try {
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toContain(`policy.workers is ${cores + 1} but this machine has ${cores} cores`);
      expect(await backend.forward([[1, 3, 4]])).toHaveLength(1);
    } finally {
      await backend.close();
    }
  });

  it('close() terminates the worker threads', async () => {
    const backend = await start(2);
    expect(backend.liveWorkers).toBe(2);
    await backend.close();
    expect(backend.liveWorkers).toBe(0);
    await expect(backend.forward([[1, 3, 4]])).rejects.toThrow('backend is closed');
  });

  it('a process exits after close(), and on SIGINT or SIGTERM with live workers, leaving no thread', async () => {
    const script = (close: boolean) => `
      import { ParallelEmbeddedBackend } from ${JSON.stringify(new URL('./parallel-backend.ts', import.meta.url).href)};
      import { stubTokenizer } from ${JSON.stringify(new URL('../testing/policy/test-helpers.ts', import.meta.url).href)};
      import { readdirSync } from 'node:fs';
      const backend = await ParallelEmbeddedBackend.create(${JSON.stringify(config)}, stubTokenizer(12), 1, {
        workers: 2, tokenizerFactory: ${JSON.stringify(tokenizerFactory)}, onWarning: () => {} });
      await backend.forward([[1, 3, 4], [1, 5, 6]]);
      console.log('ready ' + readdirSync('/proc/self/task').length);
      ${close ? 'await backend.close(); console.log("closed");' : 'setInterval(() => {}, 1000);'}
    `;
    const child = (close: boolean, signal: 'SIGINT' | 'SIGTERM' = 'SIGINT') =>
      new Promise<{ code: number | null; signal: string | null; output: string; pid: number }>((resolve) => {
        const process = spawn('node', ['--import', 'tsx', '--input-type=module', '-e', script(close)], {
          env: { PATH: globalThis.process.env.PATH ?? '' },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let output = '';
        process.stdout.on('data', (chunk) => {
          output += chunk;
          if (!close && output.includes('ready')) process.kill(signal);
        });
        process.stderr.on('data', (chunk) => {
          output += chunk;
        });
        process.on('exit', (code, signal) => resolve({ code, signal, output, pid: process.pid! }));
      });
    const closed = await child(true);
    expect(closed.output).toContain('closed');
    expect(closed.code).toBe(0);
    for (const signal of ['SIGINT', 'SIGTERM'] as const) {
      const interrupted = await child(false, signal);
      // The two replicas were live threads of the process when the signal came.
      const threads = Number(/ready (\d+)/.exec(interrupted.output)?.[1]);
      expect(threads, interrupted.output).toBeGreaterThan(2);
      expect(interrupted.signal).toBe(signal);
      // Reaped, with every thread: nothing of the process is left.
      expect(existsSync(`/proc/${interrupted.pid}`)).toBe(false);
    }
  }, 90_000);
});
