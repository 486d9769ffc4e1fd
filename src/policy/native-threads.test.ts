// native/model.c with its rows split between threads (policy.threads, native-model.ts `threads`) and its
// profile (modelProfile, model-profile.h):
// - every thread count gives the single-thread result up to float32 rounding of the gradient sum
//   (relative 1e-6 per tensor), on a random base-preset model and on uneven splits (5 rows on 2 and 3
//   threads, more threads than rows), and through EmbeddedBackend with engineThreads, the path a run takes;
// - a non-finite value that only the last thread's rows reach is still caught, named, and leaves the
//   caller's gradient unchanged;
// - a bad thread count is a clear error;
// - the profile counts every call and exactly the analytic matrix-product FLOPs of each phase, and turning
//   it off stops the counting;
// - policy.threads resolves and pins like workers, and needs the native engine.
// Mutations checked by hand: chunk inputs offset by one row (every agreement case fails), the second
// chunk's gradient not summed (fails), logprobs copied to offset 0 for every chunk (fails), the
// attention FLOP count halved or counted dense instead of over the causal blocks (the profile case fails).
import { availableParallelism } from 'node:os';
import { describe, expect, it } from 'vitest';
import { requirement } from '../../test/requirements.ts';
import { Rng } from '../core/rng.ts';
import { relativeError } from '../testing/policy/kernel-test-helpers.ts';
import { randomData, stubTokenizer } from '../testing/policy/test-helpers.ts';
import { EmbeddedBackend } from './embedded-backend.ts';
import { initialParameterValues, type ModelConfig } from './model.ts';
import { modelPresets } from './model-config.ts';
import {
  nativeForwardBackward,
  nativeModelEntry,
  nativeModelProfile,
  nativeModelStatus,
  packParameters,
  unpackParameters,
} from './native-model.ts';
import { engineChoice, type PolicyBlock, pinWorkerCount, resolveEngineThreads } from './parallel-options.ts';
import { initRuntime } from './runtime.ts';
import { padBatch } from './teacher-forcing.ts';

await initRuntime('wasm');
const status = nativeModelStatus();
const native = requirement(status.available, status.reason);

/** randomData (test-helpers.ts) as one padded batch. */
function randomBatch(vocab: number, rows: number, maxLength: number, seed: number) {
  const data = randomData(vocab, rows, maxLength, seed);
  return padBatch(
    data.map((datum) => datum.tokens),
    data.map((datum) => datum.weights),
    0,
  );
}

async function randomBackend(config: ModelConfig, threads?: number): Promise<EmbeddedBackend> {
  return EmbeddedBackend.fromContents(
    { config, weights: initialParameterValues(config, new Rng(5)), optimizer: null },
    stubTokenizer(config.vocabSize),
    threads === undefined ? {} : { engine: 'native', engineThreads: threads },
  );
}

function worstTensorError(a: Float32Array, b: Float32Array, config: ModelConfig): number {
  const left = unpackParameters(config, a);
  const right = unpackParameters(config, b);
  return Math.max(
    ...[...right].map(([name, values]) => relativeError(left.get(name) as Float32Array, values)),
  );
}

describe(`native/model.c on several threads${native.label}`, () => {
  it.skipIf(native.skip)('gives the one-thread result for every split of the rows', async () => {
    const config: ModelConfig = { vocabSize: 37, ...modelPresets.base };
    const backend = await randomBackend(config);
    try {
      const params = packParameters(backend.model);
      for (const [rows, threadCounts] of [
        [5, [2, 3, 5, 8]],
        [8, [2, 4]],
      ] as const) {
        const batch = randomBatch(config.vocabSize, rows, 96, rows);
        const one = nativeForwardBackward(backend.model, batch, 1, { params, threads: 1 });
        expect(one.flatGradients.reduce((m, g) => Math.max(m, Math.abs(g)), 0)).toBeGreaterThan(1e-3);
        for (const threads of threadCounts) {
          const many = nativeForwardBackward(backend.model, batch, 1, { params, threads });
          expect(relativeError(many.logprobs, one.logprobs), `${rows} rows, ${threads} threads`).toBeLessThan(
            1e-6,
          );
          expect(Math.abs(many.loss - one.loss)).toBeLessThan(1e-6 * Math.abs(one.loss));
          expect(worstTensorError(many.flatGradients, one.flatGradients, config)).toBeLessThan(1e-6);
        }
      }
    } finally {
      backend.dispose();
    }
  });

  it.skipIf(native.skip)('runs through EmbeddedBackend with engineThreads as on one thread', async () => {
    const config: ModelConfig = { vocabSize: 29, ...modelPresets.small };
    const one = await randomBackend(config, 1);
    const two = await randomBackend(config, 2);
    try {
      const rng = new Rng(3);
      const data = Array.from({ length: 6 }, () => {
        const tokens = Array.from({ length: rng.int(3, 60) }, () => rng.int(0, 28));
        return { tokens, weights: tokens.slice(1).map(() => rng.normal()) };
      });
      const a = await one.forwardBackward(data, 'cross_entropy');
      const b = await two.forwardBackward(data, 'cross_entropy');
      expect(relativeError(b.logprobs.flat(), a.logprobs.flat())).toBeLessThan(1e-6);
      const ga = one.gradientValues();
      const gb = two.gradientValues();
      for (const [name, values] of ga)
        expect(relativeError(gb.get(name) as Float32Array, values)).toBeLessThan(1e-6);
      expect(two.snapshotForSampling().engine).toBe('native');
    } finally {
      one.dispose();
      two.dispose();
    }
  });

  it.skipIf(native.skip)("catches a non-finite value only the last thread's rows reach", async () => {
    const config: ModelConfig = { vocabSize: 13, ...modelPresets.tiny };
    const backend = await randomBackend(config);
    try {
      // Token 12 appears only in the last row, which the last of 3 threads runs.
      const tokens = [
        [1, 2, 3, 4, 5, 6],
        [2, 3, 4, 5],
        [3, 4, 5, 6, 7],
        [12, 1, 2, 3],
      ];
      const batch = padBatch(
        tokens,
        tokens.map((sequence) => sequence.slice(1).map(() => 1)),
        0,
      );
      const params = packParameters(backend.model);
      const poisoned = Float32Array.from(params);
      const wte = unpackParameters(config, poisoned).get('wte.weight') as Float32Array;
      wte[12 * config.dModel + 3] = Number.POSITIVE_INFINITY;
      const gradients = Float32Array.from({ length: params.length }, (_, i) => Math.sin(i));
      const before = Array.from(gradients);
      expect(() =>
        nativeForwardBackward(backend.model, batch, 1, { params: poisoned, gradients, threads: 3 }),
      ).toThrow(/parameter wte\.weight holds a non-finite value/);
      expect(Array.from(gradients)).toEqual(before);
    } finally {
      backend.dispose();
    }
  });

  it.skipIf(native.skip)('refuses a bad thread count with a clear error', () => {
    const entry = nativeModelEntry() as unknown as (...values: unknown[]) => number;
    const config = { vocabSize: 7, dModel: 8, layers: 1, heads: 2, contextLength: 6 };
    const size = initialParameterValues(config, new Rng(1));
    const params = new Float32Array([...size.values()].reduce((n, v) => n + v.length, 0));
    const args = (threads: unknown) => [
      7,
      8,
      1,
      2,
      6,
      params,
      new Float32Array(params.length),
      Int32Array.from([1, 2, 3, 4, 5, 6]),
      Int32Array.from([2, 3, 4, 5, 6, 0]),
      Float32Array.from([1, 1, 1, 1, 1, 1]),
      2,
      3,
      new Float32Array(6),
      threads,
    ];
    expect(Number.isFinite(entry(...args(2)))).toBe(true);
    for (const bad of [0, 17, 1.5, -1, 'two', Number.NaN])
      expect(() => entry(...args(bad)), String(bad)).toThrow(/threads must be an integer in \[1, 16\]/);
  });

  it.skipIf(native.skip)('profiles every call with the analytic matrix-product FLOPs', async () => {
    const config: ModelConfig = { vocabSize: 13, ...modelPresets.tiny };
    const backend = await randomBackend(config);
    try {
      const rows = 3;
      const batch = randomBatch(13, rows, 60, 9); // time 59: two blocks, the second partial
      const params = packParameters(backend.model);
      nativeModelProfile(true);
      for (const threads of [1, 2]) nativeForwardBackward(backend.model, batch, 1, { params, threads });
      const profile = nativeModelProfile(false);
      if (!profile) throw new Error('no profile entry');
      expect(profile.calls).toBe(2);
      expect(profile.wallSeconds).toBeGreaterThan(0);
      const { dModel: d, layers: L, vocabSize: V } = config;
      const N = rows * batch.time;
      const T = batch.time;
      const linear = L * 2 * N * d * (3 * d + d + 4 * d + 4 * d) + 2 * N * d * V;
      // the attention products run over the causal triangle in blocks of 32 query rows: rows × keys each
      let triangle = 0;
      for (let t0 = 0; t0 < T; t0 += 32) triangle += (Math.min(T, t0 + 32) - t0) * Math.min(T, t0 + 32);
      expect(triangle).toBeLessThan(T * T);
      const attention = L * 4 * rows * triangle * d;
      const phases = profile.phases;
      // two calls; the split into threads changes nothing in the count
      expect(phases.matmul.flops).toBe(2 * linear);
      expect(phases.matmulBackward.flops).toBe(2 * 2 * linear);
      expect(phases.attention.flops).toBe(2 * attention);
      expect(phases.attentionBackward.flops).toBe(2 * 2 * attention);
      expect(phases.gelu.flops).toBe(0);
      for (const [name, phase] of Object.entries(phases)) expect(phase.seconds, name).toBeGreaterThan(0);
      expect(Object.keys(phases)).toHaveLength(12);
      // off: nothing more is counted
      nativeForwardBackward(backend.model, batch, 1, { params });
      expect(nativeModelProfile(false)?.calls).toBe(0);
    } finally {
      backend.dispose();
    }
  });
});

describe('policy.threads', () => {
  it('resolves auto to the cores per worker and pins it in the stored config', () => {
    const cores = availableParallelism();
    expect(resolveEngineThreads('auto', 1)).toBe(Math.min(16, cores));
    expect(resolveEngineThreads('auto', cores * 2)).toBe(1);
    expect(resolveEngineThreads(3, 8)).toBe(3);
    const pinned = pinWorkerCount<{ policy?: PolicyBlock }>({ policy: { workers: 1, engine: 'native' } });
    expect(pinned.policy?.threads).toBe(Math.min(16, cores));
    expect(engineChoice(pinned.policy)).toEqual({ engine: 'native', engineThreads: pinned.policy?.threads });
    expect(engineChoice({ workers: 2 })).toEqual({ engine: undefined, engineThreads: undefined });
    expect(
      pinWorkerCount<{ policy?: PolicyBlock }>({ policy: { workers: 2 } }).policy?.threads,
    ).toBeUndefined();
    expect(() => pinWorkerCount({ policy: { workers: 2, threads: 2 } })).toThrow(
      /policy\.threads .* needs policy\.engine 'native'/,
    );
  });
});
