// The native elementwise kernels (native/elementwise.c via native-elementwise.ts) against the stock wasm
// kernels they replace: Add, Sub, Multiply, RealDiv and Square for every broadcast pattern (same shape,
// scalar, a bias along leading axes, LayerNorm's trailing [m, 1], general rank-4 broadcasting on both sides),
// Sum / Mean / Max over trailing axes, gradients of composites built from them, the counters that prove the
// native path ran, and the addon's refusal of ranges outside the heap. Skipped where the addon is not built.
import { createRequire } from 'node:module';
import { afterAll, describe, expect, it } from 'vitest';
import { nativeKernels } from '../../test/requirements.ts';
import {
  heapGrowingOuterProduct,
  randomTensor,
  relativeError,
  tinyModelLogitsAndGradients,
} from '../testing/policy/kernel-test-helpers.ts';
import {
  broadcastPlan,
  nativeBinaryCount,
  nativeReduceCount,
  setNativeElementwise,
} from './native-elementwise.ts';
import { setNativeFused } from './native-fused.ts';
import { nativeAddonPath, setNativeKernels } from './native-kernels.ts';
import { initRuntime, tf } from './runtime.ts';

await initRuntime('wasm');
const native = nativeKernels();

/** Runs `compute` with the native elementwise kernels, then the stock ones: [native, stock, calls]. */
function onBothPaths<T>(compute: () => T): [T, T, { binary: number; reduce: number }] {
  const binary = nativeBinaryCount();
  const reduce = nativeReduceCount();
  setNativeElementwise(true);
  const native = compute();
  const calls = { binary: nativeBinaryCount() - binary, reduce: nativeReduceCount() - reduce };
  setNativeElementwise(false);
  try {
    return [native, compute(), calls];
  } finally {
    setNativeElementwise(true);
  }
}

describe('broadcastPlan', () => {
  it('merges the axes along which both operands are broadcast the same way', () => {
    expect(broadcastPlan([3, 5], [3, 5])).toEqual({ shape: [15], aStrides: [1], bStrides: [1] });
    expect(broadcastPlan([4, 5], [5])).toEqual({ shape: [4, 5], aStrides: [5, 1], bStrides: [0, 1] });
    expect(broadcastPlan([2, 4, 5], [])).toEqual({ shape: [40], aStrides: [1], bStrides: [0] });
    expect(broadcastPlan([6, 1], [6, 7])).toEqual({ shape: [6, 7], aStrides: [1, 0], bStrides: [7, 1] });
    // The sampler's [R, H, 1, hd] × [R, H, C, hd]: R·H merges, the C axis is broadcast for a only.
    expect(broadcastPlan([2, 3, 1, 4], [2, 3, 5, 4])).toEqual({
      shape: [6, 5, 4],
      aStrides: [4, 0, 1],
      bStrides: [20, 4, 1],
    });
    // Both sides broadcast, size-1 axes dropped.
    expect(broadcastPlan([2, 1, 3, 1], [1, 4, 3, 1])).toEqual({
      shape: [2, 4, 3],
      aStrides: [3, 0, 1],
      bStrides: [0, 3, 1],
    });
    expect(broadcastPlan([1, 1], [1])).toEqual({ shape: [1], aStrides: [0], bStrides: [0] });
  });
});

describe.skipIf(native.skip)(`native elementwise kernels${native.label}`, () => {
  afterAll(() => {
    setNativeKernels(true);
    setNativeElementwise(true);
  });

  const shapePairs: [string, number[], number[]][] = [
    ['same shape, odd size', [7, 143], [7, 143]],
    ['scalar on the right', [3, 37], []],
    ['scalar on the left', [], [5, 11]],
    ['bias along leading axes', [4, 9, 17], [17]],
    ['bias on the left', [13], [6, 13]],
    ['trailing broadcast (LayerNorm)', [9, 33], [9, 1]],
    ['trailing broadcast on the left', [2, 5, 1], [2, 5, 19]],
    ['rank 4, the sampler pattern', [3, 2, 1, 7], [3, 2, 11, 7]],
    ['rank 4, both sides broadcast', [3, 1, 5, 1], [1, 4, 1, 6]],
    ['rank 5 with size-1 axes', [2, 1, 3, 1, 5], [1, 1, 3, 4, 1]],
    ['one element', [1, 1], [1]],
  ];
  const ops: [string, (a: tf.Tensor, b: tf.Tensor) => tf.Tensor][] = [
    ['add', tf.add],
    ['sub', tf.sub],
    ['mul', tf.mul],
    ['div', tf.div],
  ];

  for (const [name, aShape, bShape] of shapePairs) {
    it(`${name}: ${JSON.stringify(aShape)} with ${JSON.stringify(bShape)} equals the wasm kernels exactly`, () => {
      for (const [index, [opName, op]] of ops.entries()) {
        const compute = () =>
          tf.tidy(() => {
            const a = randomTensor(aShape, 2 * index + 1);
            const b =
              opName === 'div'
                ? randomTensor(bShape, 2 * index + 2, (v) => 0.5 + Math.abs(v)) // divisors away from 0
                : randomTensor(bShape, 2 * index + 2);
            const out = op(a, b);
            return { shape: out.shape, values: Array.from(out.dataSync()) };
          });
        const [native, stock, calls] = onBothPaths(compute);
        expect(calls.binary, opName).toBe(1);
        expect(native.shape, opName).toEqual(stock.shape);
        // One float32 operation per element: correctly rounded on both paths.
        expect(native.values, opName).toEqual(stock.values);
      }
    });
  }

  it('squares like the wasm kernel', () => {
    const compute = () => tf.tidy(() => Array.from(tf.square(randomTensor([3, 101], 4)).dataSync()));
    const [native, stock, calls] = onBothPaths(compute);
    expect(calls.binary).toBe(1);
    expect(native).toEqual(stock);
  });

  it('takes the heap after allocating the output (an allocation that grows the wasm memory)', () => {
    const before = nativeBinaryCount();
    const { corners, expected, heapGrew } = heapGrowingOuterProduct((a, b) => tf.mul(a, b));
    expect(nativeBinaryCount()).toBe(before + 1);
    expect(heapGrew).toBe(true);
    expect(corners).toEqual(expected);
  });

  const reductions: [string, number[], number | number[] | undefined, boolean][] = [
    ['last axis', [7, 131], -1, false],
    ['last axis, keepDims', [3, 4, 37], 2, true],
    ['two trailing axes', [3, 4, 5], [2, 1], false],
    ['two trailing axes, keepDims', [6, 5, 3], [1, 2], true],
    ['everything', [2, 3, 17], undefined, false],
    ['a size-1 last axis', [9, 1], -1, true],
  ];
  const reducers: [
    string,
    (x: tf.Tensor, axis: number | number[] | undefined, keep: boolean) => tf.Tensor,
  ][] = [
    ['sum', tf.sum],
    ['mean', tf.mean],
    ['max', tf.max],
  ];
  for (const [name, shape, axis, keepDims] of reductions) {
    it(`sum, mean and max over ${name} (${JSON.stringify(shape)}, axis ${JSON.stringify(axis)}) like wasm`, () => {
      for (const [index, [reducerName, reduce]] of reducers.entries()) {
        const compute = () =>
          tf.tidy(() => {
            const out = reduce(randomTensor(shape, index + 5), axis, keepDims);
            return { shape: out.shape, values: out.dataSync() as Float32Array };
          });
        const [native, stock, calls] = onBothPaths(compute);
        expect(calls.reduce, reducerName).toBe(1);
        expect(native.shape, reducerName).toEqual(stock.shape);
        // Sums in another order: float32 rounding apart. The maximum is exact.
        if (reducerName === 'max') expect(Array.from(native.values)).toEqual(Array.from(stock.values));
        else expect(relativeError(native.values, stock.values), reducerName).toBeLessThan(1e-6);
      }
    });
  }

  it('leaves other dtypes, leading and middle axes and empty tensors to the stock kernels', () => {
    const binary = nativeBinaryCount();
    const reduce = nativeReduceCount();
    tf.tidy(() => {
      const x = randomTensor([2, 3, 4], 1);
      const ints = tf.cast(x, 'int32');
      tf.sum(x, 1).dataSync();
      tf.mean(x, 0).dataSync();
      tf.max(x, [0, 2]).dataSync();
      tf.sum(ints, -1).dataSync();
      tf.add(ints, ints).dataSync();
      tf.mul(ints, tf.scalar(2, 'int32')).dataSync();
      expect(tf.add(tf.zeros([0, 3]), tf.ones([3])).shape).toEqual([0, 3]);
    });
    // The zero-size add is native (it only allocates); nothing else is.
    expect(nativeReduceCount()).toBe(reduce);
    expect(nativeBinaryCount()).toBeLessThanOrEqual(binary + 1);
  });

  it('obeys setNativeKernels(false)', () => {
    setNativeKernels(false);
    const binary = nativeBinaryCount();
    const reduce = nativeReduceCount();
    try {
      tf.tidy(() => tf.sum(tf.mul(randomTensor([4, 5], 1), randomTensor([5], 2)), -1).dataSync());
    } finally {
      setNativeKernels(true);
    }
    expect([nativeBinaryCount(), nativeReduceCount()]).toEqual([binary, reduce]);
  });

  it('gives a LayerNorm and an attention-score composite the same gradients as wasm', () => {
    const compute = () =>
      tf.tidy(() => {
        const x = randomTensor([6, 10], 1);
        const gain = randomTensor([10], 2);
        const bias = randomTensor([10], 3);
        const query = randomTensor([2, 3, 1, 4], 4);
        const keys = randomTensor([2, 3, 5, 4], 5);
        const probe = randomTensor([6, 10], 6);
        const layerNorm = (input: tf.Tensor, g: tf.Tensor, b: tf.Tensor) => {
          const mean = tf.mean(input, -1, true);
          const centred = tf.sub(input, mean);
          const std = tf.sqrt(tf.add(tf.mean(tf.square(centred), -1, true), 1e-5));
          return tf.add(tf.mul(tf.div(centred, std), g), b);
        };
        const loss = (input: tf.Tensor, g: tf.Tensor, b: tf.Tensor, q: tf.Tensor, k: tf.Tensor) => {
          const normed = tf.sum(tf.mul(layerNorm(input, g, b), probe));
          const scores = tf.sum(tf.mul(q, k), -1); // [2, 3, 5]
          const softmaxish = tf.sub(scores, tf.max(scores, -1, true));
          return tf.add(normed, tf.sum(tf.mul(softmaxish, softmaxish)));
        };
        return tf
          .grads(loss)([x, gain, bias, query, keys])
          .map((g) => g.dataSync() as Float32Array);
      });
    const [native, stock, calls] = onBothPaths(compute);
    expect(calls.binary).toBeGreaterThan(10);
    expect(calls.reduce).toBeGreaterThan(3);
    expect(native).toHaveLength(5);
    for (let i = 0; i < native.length; i++)
      expect(relativeError(native[i], stock[i]), `${i}`).toBeLessThan(1e-5);
  });

  it('gives the tiny model the same logits and parameter gradients as wasm (< 1e-4 relative)', () => {
    // With the fused LayerNorm/GELU/softmax kernels off, so that the model's elementwise compositions (the
    // fallback wherever the fused kernels do not apply) run on these kernels.
    setNativeFused(false);
    try {
      const [native, stock, calls] = onBothPaths(tinyModelLogitsAndGradients);
      expect(calls.binary).toBeGreaterThan(50);
      expect(calls.reduce).toBeGreaterThan(5);
      for (let i = 0; i < native.length; i++)
        expect(relativeError(native[i], stock[i]), `${i}`).toBeLessThan(1e-4);
    } finally {
      setNativeFused(true);
    }
  });

  it('refuses ranges outside the wasm heap and malformed dims instead of touching other memory', () => {
    const addon = createRequire(import.meta.url)(nativeAddonPath);
    const heap = new Uint8Array(64); // 16 floats
    const dims = (rank: number, ...values: number[]) => Int32Array.from([rank, ...values]);
    // In range: 4 + 4 → 4 at bytes 0, 16, 32.
    expect(() => addon.binary(heap, 0, 0, 16, 32, dims(1, 4, 1, 1))).not.toThrow();
    expect(() => addon.binary(heap, 0, 0, 16, 52, dims(1, 4, 1, 1))).toThrow(/outside the wasm heap/);
    expect(() => addon.binary(heap, 0, 0, 60, 32, dims(1, 4, 1, 1))).toThrow(/outside the wasm heap/);
    expect(() => addon.binary(heap, 0, -4, 16, 32, dims(1, 4, 1, 1))).toThrow(/outside the wasm heap/);
    expect(() => addon.binary(heap, 0, 2, 16, 32, dims(1, 4, 1, 1))).toThrow(/outside the wasm heap/);
    // [2, 4] with a's row stride 8 from byte 24 (float 6) reaches float index 6 + 8 + 3 = 17 of a 16-float heap.
    expect(() => addon.binary(heap, 2, 24, 0, 0, dims(2, 2, 4, 8, 1, 0, 1))).toThrow(/outside the wasm heap/);
    expect(() => addon.binary(heap, 0, 0, 0, 0, dims(1, 4, 2, 1))).toThrow(/innermost stride/);
    expect(() => addon.binary(heap, 0, 0, 0, 0, dims(2, 4))).toThrow(/dims too short/);
    expect(() => addon.binary(heap, 0, 0, 0, 0, dims(9))).toThrow(/rank/);
    expect(() => addon.binary(heap, 7, 0, 16, 32, dims(1, 4, 1, 1))).toThrow(/unknown operation/);
    expect(() => addon.reduceTrailing(heap, 0, 0, 4, 4, 0)).not.toThrow();
    expect(() => addon.reduceTrailing(heap, 0, 0, 4, 5, 0)).toThrow(/outside the wasm heap/);
    expect(() => addon.reduceTrailing(heap, 0, 0, 2, 4, 60)).toThrow(/outside the wasm heap/);
    expect(() => addon.reduceTrailing(heap, 0, 0, 2, 0, 0)).toThrow(/sizes/);
  });
});
