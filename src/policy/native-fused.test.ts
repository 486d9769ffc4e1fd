// The fused native kernels (native/fused.c via native-fused.ts) against the tfjs compositions of
// layers.ts and the JavaScript Adam loop of optimizer.ts: values and gradients on random inputs with odd
// widths (< 1e-4 relative), a finite-difference check of each native gradient, the tiny model end to end,
// the Adam update bit for bit, and the counters that prove the native kernels ran. Skipped, with the
// reason, where the addon is not built.
import { createRequire } from 'node:module';
import { afterEach, describe, expect, it } from 'vitest';
import { nativeKernels } from '../../test/requirements.ts';
import {
  randomArray,
  randomTensor,
  relativeError,
  tinyModelLogitsAndGradients,
} from '../testing/policy/kernel-test-helpers.ts';
import { attend, causalMask, gelu, layerNorm } from './layers.ts';
import { nativeFusedActive, nativeFusedCounts, setNativeFused } from './native-fused.ts';
import { nativeAddonPath, setNativeKernels } from './native-kernels.ts';
import { AdamW } from './optimizer.ts';
import { initRuntime, tf } from './runtime.ts';

await initRuntime('wasm');
const native = nativeKernels();

type Counts = ReturnType<typeof nativeFusedCounts>;

/** `compute` natively, then on the tfjs composition: [native, reference, native kernel calls by name]. */
function onBothPaths(compute: () => Float32Array[]): [Float32Array[], Float32Array[], Counts] {
  const before = nativeFusedCounts();
  setNativeFused(true);
  const native = compute();
  const after = nativeFusedCounts();
  const calls = Object.fromEntries(
    Object.entries(after).map(([name, n]) => [name, n - before[name as keyof Counts]]),
  ) as Counts;
  setNativeFused(false);
  try {
    return [native, compute(), calls];
  } finally {
    setNativeFused(true);
  }
}

/** [f(inputs), ...d(Σ f(inputs) · probe)/d inputs] as arrays. */
function valueAndGradients(
  f: (...xs: tf.Tensor[]) => tf.Tensor,
  inputs: tf.Tensor[],
  seed: number,
): Float32Array[] {
  return tf.tidy(() => {
    const value = f(...inputs);
    const probe = randomTensor(value.shape, seed);
    const gradients = tf.grads((...xs: tf.Tensor[]) => tf.sum(tf.mul(f(...xs), probe)))(inputs);
    return [value, ...gradients].map((t) => t.dataSync() as Float32Array);
  });
}

function expectClose(native: Float32Array[], reference: Float32Array[], tolerance = 1e-4): void {
  expect(native.length).toBe(reference.length);
  for (let i = 0; i < native.length; i++)
    expect(relativeError(native[i], reference[i])).toBeLessThan(tolerance);
}

/**
 * Central finite differences of Σ f(inputs) · probe at a few coordinates of every input, computed in
 * float64 from float32 evaluations, against the (native) analytic gradient.
 */
function finiteDifferenceCheck(f: (...xs: tf.Tensor[]) => tf.Tensor, shapes: number[][], seed: number): void {
  const values = shapes.map((shape, i) =>
    randomArray(
      shape.reduce((p, n) => p * n, 1),
      seed + i,
    ),
  );
  const probeShape = tf.tidy(() => f(...values.map((v, i) => tf.tensor(v, shapes[i]))).shape);
  const probe = randomArray(
    probeShape.reduce((p, n) => p * n, 1),
    seed + 99,
  );
  const loss = (arrays: Float32Array[]) =>
    tf.tidy(() => {
      const out = f(...arrays.map((v, i) => tf.tensor(v, shapes[i]))).dataSync();
      let sum = 0;
      for (let i = 0; i < out.length; i++) sum += out[i] * probe[i];
      return sum;
    });
  const analytic = valueAndGradientsWithProbe(f, values, shapes, probe, probeShape);
  const h = 1e-2;
  values.forEach((array, input) => {
    const scale = Math.max(...analytic[input].map(Math.abs));
    for (const index of [0, Math.floor(array.length / 2), array.length - 1]) {
      const plus = values.map((v) => v.slice());
      const minus = values.map((v) => v.slice());
      plus[input][index] += h;
      minus[input][index] -= h;
      const numeric = (loss(plus) - loss(minus)) / (2 * h);
      expect(Math.abs(numeric - analytic[input][index]) / scale).toBeLessThan(3e-3);
    }
  });
}

function valueAndGradientsWithProbe(
  f: (...xs: tf.Tensor[]) => tf.Tensor,
  values: Float32Array[],
  shapes: number[][],
  probe: Float32Array,
  probeShape: number[],
): Float32Array[] {
  return tf.tidy(() => {
    const inputs = values.map((v, i) => tf.tensor(v, shapes[i]));
    const probeTensor = tf.tensor(probe, probeShape);
    const gradients = tf.grads((...xs: tf.Tensor[]) => tf.sum(tf.mul(f(...xs), probeTensor)))(inputs);
    return gradients.map((t) => t.dataSync() as Float32Array);
  });
}

const attendMasked = (q: tf.Tensor, k: tf.Tensor, v: tf.Tensor) => {
  const mask = causalMask(q.shape[2] as number);
  return attend(q, k, v, mask);
};

describe.skipIf(native.skip)(`fused native kernels${native.label}`, () => {
  afterEach(() => {
    setNativeFused(true);
    setNativeKernels(true);
  });

  it('LayerNorm: values and gradients (x, weight, bias) like the tfjs composition, width 37', () => {
    const inputs = [randomTensor([3, 5, 37], 1, (v) => 3 * v), randomTensor([37], 2), randomTensor([37], 3)];
    inputs[0] = tf.add(inputs[0], 1.5); // a non-zero mean
    const [native, reference, calls] = onBothPaths(() => valueAndGradients(layerNorm, inputs, 4));
    expect(calls.layerNorm).toBe(2); // the value, then the forward of tf.grads
    expect(calls.layerNormGrad).toBe(1);
    expectClose(native, reference);
  });

  it('GELU: value and gradient like the tfjs composition, width 45', () => {
    const x = randomTensor([7, 45], 5, (v) => 2 * v);
    const [native, reference, calls] = onBothPaths(() => valueAndGradients(gelu, [x], 6));
    expect(calls.gelu).toBe(2);
    expect(calls.geluGrad).toBe(1);
    expectClose(native, reference);
  });

  it('masked attention softmax: values and q/k/v gradients like tf.add + tf.softmax, T = 9, hd = 5', () => {
    const inputs = [1, 2, 3].map((seed) => randomTensor([2, 3, 9, 5], seed, (v) => 2 * v));
    const [native, reference, calls] = onBothPaths(() => valueAndGradients(attendMasked, inputs, 7));
    expect(calls.maskedSoftmax).toBe(2);
    expect(calls.softmaxGrad).toBe(1);
    expectClose(native, reference);
  });

  it('leaves a mask that is not [T, S] to tf.add + tf.softmax', () => {
    const before = nativeFusedCounts().maskedSoftmax;
    const q = randomTensor([1, 2, 4, 3], 1);
    const rowMask = tf.tensor2d([[0, 0, -1e9, 0]]); // [1, S]: broadcast over the queries
    for (const mask of [tf.reshape(causalMask(4), [1, 1, 4, 4]), rowMask]) {
      const [native, reference] = onBothPaths(() => [attend(q, q, q, mask).dataSync() as Float32Array]);
      expectClose(native, reference);
    }
    expect(nativeFusedCounts().maskedSoftmax).toBe(before);
  });

  it('agrees with finite differences (LayerNorm, GELU, masked softmax)', () => {
    expect(nativeFusedActive()).toBe(true);
    const before = nativeFusedCounts();
    finiteDifferenceCheck(layerNorm, [[2, 7], [7], [7]], 11);
    finiteDifferenceCheck(gelu, [[3, 5]], 12);
    finiteDifferenceCheck(
      attendMasked,
      [
        [1, 2, 4, 3],
        [1, 2, 4, 3],
        [1, 2, 4, 3],
      ],
      13,
    );
    const after = nativeFusedCounts();
    for (const name of ['layerNormGrad', 'geluGrad', 'softmaxGrad'] as const)
      expect(after[name]).toBeGreaterThan(before[name]);
  });

  it('gives the tiny model the same logits and parameter gradients as the tfjs compositions', () => {
    const kept: number[] = []; // tensors left behind by each run (the helper keeps some on both paths)
    const [native, reference, calls] = onBothPaths(() => {
      const before = tf.memory().numTensors;
      const outputs = tinyModelLogitsAndGradients();
      kept.push(tf.memory().numTensors - before);
      return outputs;
    });
    expect(kept[0]).toBe(kept[1]); // nothing the native path saves for the backward pass leaks
    expect(calls.layerNormGrad).toBe(5); // 2 layers × 2 + the final LayerNorm
    expect(calls.geluGrad).toBe(2);
    expect(calls.softmaxGrad).toBe(2);
    expectClose(native, reference);
  });

  it('is off with setNativeKernels(false)', () => {
    setNativeKernels(false);
    expect(nativeFusedActive()).toBe(false);
    const before = nativeFusedCounts();
    const x = randomTensor([2, 9], 1);
    valueAndGradients(layerNorm, [x, tf.ones([9]), tf.zeros([9])], 2);
    valueAndGradients(gelu, [x], 3);
    expect(nativeFusedCounts()).toEqual(before);
  });

  it('updates Adam/AdamW exactly like the float64 JavaScript loop; the state round-trips', () => {
    const shapes = new Map<string, number[]>([
      ['w', [5, 7]],
      ['b', [7]],
      ['unused', [3]],
    ]);
    const options = {
      learningRate: 3e-2,
      weightDecay: 0.1,
      gradClip: 0.5,
      betas: [0.8, 0.99] as [number, number],
    };
    const run = (native: boolean, steps: number, from?: AdamW) => {
      setNativeFused(native);
      const params = new Map(
        [...shapes].map(([name, shape], i) => [
          name,
          tf.variable(randomTensor(shape, 20 + i), true, `p-${name}-${Math.random()}`),
        ]),
      );
      const optimizer = new AdamW(shapes);
      if (from) optimizer.loadState(from.state());
      const norms: number[] = [];
      for (let step = 0; step < steps; step++) {
        const grads = new Map([
          ['w', randomTensor([5, 7], 30 + step, (v) => 4 * v)],
          ['b', randomTensor([7], 40 + step)],
        ]);
        norms.push(optimizer.apply(params, grads, options).gradNorm);
        for (const g of grads.values()) g.dispose();
      }
      const values = [...params.values()].map((p) => p.dataSync().slice());
      for (const p of params.values()) p.dispose();
      return { values, norms, optimizer };
    };
    const before = nativeFusedCounts().adam;
    const native = run(true, 3);
    expect(nativeFusedCounts().adam - before).toBe(9);
    const reference = run(false, 3);
    expect(native.norms).toEqual(reference.norms);
    expect(native.values).toEqual(reference.values);
    const nativeState = native.optimizer.state();
    const referenceState = reference.optimizer.state();
    expect(nativeState).toEqual(referenceState);
    // Continue a native state on the JavaScript path and vice versa: identical again.
    expect(run(false, 2, native.optimizer).values).toEqual(run(true, 2, reference.optimizer).values);
  });

  it('takes the heap only after allocating its outputs (an allocation may replace the memory)', () => {
    // A stand-in backend whose every makeOutput grows the "heap": a new buffer, the old one detached (as
    // when wasm memory grows). A kernel that took the heap before allocating would hand the addon an
    // empty array and fail with "outside the wasm heap".
    const x = Float32Array.from([-2, -0.5, 0, 0.5, 1, 1.5, 2, 3]);
    let heap = new Uint8Array(x.buffer.slice(0));
    const offsets = new Map<object, number>([[x, 0]]);
    const backend = {
      wasm: {
        get HEAPU8() {
          return heap;
        },
      },
      dataIdMap: { get: (dataId: object) => ({ memoryOffset: offsets.get(dataId) }) },
      makeOutput(shape: number[]) {
        const size = shape.reduce((p, n) => p * n, 1);
        const grown = new Uint8Array(heap.length + 4 * size);
        grown.set(heap);
        structuredClone(heap.buffer, { transfer: [heap.buffer] }); // detaches the old buffer
        const dataId = {};
        offsets.set(dataId, heap.length);
        heap = grown;
        return { dataId, shape, dtype: 'float32' };
      },
    };
    const xInfo = { dataId: x, shape: [2, 4], dtype: 'float32' };
    const run = (name: string, inputs: Record<string, unknown>, attrs = {}) =>
      tf.getKernel(name, 'wasm')?.kernelFunc({ inputs, backend, attrs } as never) as never;
    const floats = (info: { dataId: object }, count: number) =>
      Array.from(new Float32Array(heap.buffer, offsets.get(info.dataId), count));
    const geluOut: { dataId: object } = run('CurriculaGelu', { x: xInfo });
    const expected = tf.tidy(() => {
      setNativeFused(false);
      return Array.from(gelu(tf.tensor(x, [2, 4])).dataSync());
    });
    setNativeFused(true);
    expect(relativeError(floats(geluOut, 8), expected)).toBeLessThan(1e-5);
    const [, , r]: { dataId: object }[] = run(
      'CurriculaLayerNorm',
      { x: xInfo, weight: { ...xInfo, shape: [4] }, bias: { ...xInfo, shape: [4] } },
      { epsilon: 1e-5 },
    );
    expect(floats(r, 2).every((value) => value > 0 && Number.isFinite(value))).toBe(true);
  });

  it('refuses operands outside the wasm heap instead of touching other memory', () => {
    const addon = createRequire(import.meta.url)(nativeAddonPath);
    const heap = new Uint8Array(64);
    expect(() => addon.gelu(heap, 0, 8, 36)).toThrow(/outside the wasm heap/);
    expect(() => addon.gelu(heap, 2, 4, 32)).toThrow(/outside the wasm heap/);
    expect(() => addon.layerNorm(heap, 0, 0, 0, 2, 4, 1e-5, 32, 0, 64)).toThrow(/outside the wasm heap/);
    expect(() => addon.softmaxGrad(heap, 0, 0, 2, 9, 0)).toThrow(/outside the wasm heap/);
    expect(() => addon.maskedSoftmax(heap, 0, 0, 2, 2, 2, 40)).toThrow(/outside the wasm heap/);
    expect(() => addon.sumSquares(heap, -4, 2, 0)).toThrow(/outside the wasm heap/);
    const moments = new Float32Array(4);
    expect(() => addon.adam(heap, 0, 16, 4, 56, moments, moments, 0.9, 0.99, 1, 1, 1, 1, 1e-8)).toThrow(
      /outside the wasm heap/,
    );
    expect(() => addon.adam(heap, 0, 16, 5, 32, moments, moments, 0.9, 0.99, 1, 1, 1, 1, 1e-8)).toThrow(
      /Float32Arrays/,
    );
  });
});
