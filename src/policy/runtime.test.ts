// The patched wasm kernels against the cpu backend, and the model's forward values and gradients on
// wasm against cpu (the reference's parity check, §3.1).
import { afterAll, describe, expect, it } from 'vitest';
import { randomArray, tinyModelLogitsAndGradients } from '../testing/policy/kernel-test-helpers.ts';
import { maxAbsDifference } from '../testing/policy/test-helpers.ts';
import { setNativeKernels } from './native-kernels.ts';
import { initRuntime, setSlicedBatchMatMul, slicedBatchMatMulCount, tf } from './runtime.ts';

afterAll(async () => {
  setSlicedBatchMatMul(true);
  setNativeKernels(true);
  await initRuntime('wasm');
});

/** Runs `compute` on both backends and returns [wasm result, cpu result]. */
async function onBothBackends(compute: () => Float32Array[]): Promise<[Float32Array[], Float32Array[]]> {
  await initRuntime('wasm');
  const wasm = compute();
  await initRuntime('cpu');
  const cpu = compute();
  await initRuntime('wasm');
  return [wasm, cpu];
}

describe('wasm runtime', () => {
  it('sums segments (UnsortedSegmentSum) by hand-checked example', async () => {
    await initRuntime('wasm');
    const x = tf.tensor2d([1, 2, 3, 4, 5, 6, 7, 8], [4, 2]);
    const ids = tf.tensor1d([2, 0, 2, -1], 'int32');
    const sum = tf.unsortedSegmentSum(x, ids, 3);
    expect(Array.from(sum.dataSync())).toEqual([3, 4, 0, 0, 6, 8]);
    tf.dispose([x, ids, sum]);
  });

  it('slices, splits and gathers like the cpu backend (patched Slice, SplitV, Identity, GatherV2)', async () => {
    const compute = () =>
      tf.tidy(() => {
        const x = tf.tensor(randomArray(3 * 4 * 5 * 6, 4), [3, 4, 5, 6]);
        const ids = tf.tensor(
          Int32Array.from({ length: 60 }, (_, i) => i),
          [3, 4, 5],
          'int32',
        );
        const pieces = [
          tf.slice(x, [1, 0, 2, 1], [2, 4, 3, 4]),
          tf.slice(x, [0, 1, 0, 0], [3, 2, 5, 6]),
          tf.slice(tf.reshape(x, [360]), [7], [100]),
          tf.slice(ids, [1, 1, 1], [2, 3, 2]),
          ...tf.split(x, [1, 2, 1], 1),
          ...tf.split(x, [2, 4], 3),
          ...tf.split(ids, 3, 0),
          tf.clone(x),
          tf.gather(x, tf.tensor2d([2, 0, 2, 1], [2, 2], 'int32')),
          tf.gather(x, tf.tensor1d([3, 3, 0], 'int32'), 1),
          tf.gather(ids, tf.tensor1d([4, 1], 'int32'), 2),
        ];
        return pieces.map((piece) => Float32Array.from(piece.dataSync()));
      });
    const [wasm, cpu] = await onBothBackends(compute);
    expect(wasm).toHaveLength(16);
    for (let i = 0; i < wasm.length; i++) expect(wasm[i]).toEqual(cpu[i]);
    // Gradients flow back through slices (their gradient is a pad) on the patched backend.
    const x = tf.tensor2d([1, 2, 3, 4, 5, 6], [2, 3]);
    const gradient = tf.grad((input: tf.Tensor) => tf.sum(tf.slice(input, [0, 1], [2, 2])))(x);
    expect(Array.from(gradient.dataSync())).toEqual([0, 1, 1, 0, 1, 1]);
    tf.dispose([x, gradient]);
    const table = tf.tensor2d([1, 2, 3, 4], [2, 2]);
    const outOfRange = tf.tensor1d([0, 2], 'int32');
    expect(() => tf.gather(table, outOfRange)).toThrow(/index value 2 is not in \[0, 1\]/);
    tf.dispose([table, outOfRange]);
  });

  it('matches the cpu backend on every matmul variant, batched and not, with and without slicing', async () => {
    const compute = () =>
      tf.tidy(() => {
        const a = tf.tensor(randomArray(2 * 3 * 9 * 8, 1), [2, 3, 9, 8]);
        const b = tf.tensor(randomArray(2 * 3 * 8 * 9, 2), [2, 3, 8, 9]);
        const c = tf.tensor(randomArray(2 * 3 * 9 * 8, 3), [2, 3, 9, 8]);
        const flatA = tf.reshape(a, [54, 8]);
        const flatC = tf.reshape(c, [54, 8]);
        const fewRows = tf.tensor(randomArray(6 * 2 * 8, 5), [6, 2, 8]); // 2 rows per slice: stock kernel
        const results = [
          tf.matMul(fewRows as tf.Tensor3D, tf.reshape(b, [6, 8, 9]) as tf.Tensor3D),
          tf.matMul(a as tf.Tensor4D, b as tf.Tensor4D),
          tf.matMul(a as tf.Tensor4D, c as tf.Tensor4D, false, true),
          tf.matMul(a as tf.Tensor4D, c as tf.Tensor4D, true, false),
          tf.matMul(b as tf.Tensor4D, c as tf.Tensor4D, true, true),
          tf.matMul(flatA as tf.Tensor2D, flatC as tf.Tensor2D, false, true),
          tf.matMul(flatA as tf.Tensor2D, flatC as tf.Tensor2D, true, false),
        ];
        return results.map((r) => r.dataSync() as Float32Array);
      });
    // The wasm kernels themselves: the native ones that replace them where built are checked against
    // these in native-kernels.test.ts.
    setNativeKernels(false);
    for (const sliced of [true, false]) {
      setSlicedBatchMatMul(sliced);
      const callsBefore = slicedBatchMatMulCount();
      const [wasm, cpu] = await onBothBackends(compute);
      // The four batched products with ≥ 8 rows take the per-slice XNNPACK path exactly when it is on.
      expect(slicedBatchMatMulCount() - callsBefore).toBe(sliced ? 4 : 0);
      for (let i = 0; i < wasm.length; i++) expect(maxAbsDifference(wasm[i], cpu[i])).toBeLessThan(1e-5);
    }
    setSlicedBatchMatMul(true);
    setNativeKernels(true);
  });

  it('gives the model the same logits and parameter gradients as the cpu backend (< 1e-4)', async () => {
    const [wasm, cpu] = await onBothBackends(tinyModelLogitsAndGradients);
    expect(wasm).toHaveLength(1 + 2 + 12 * 2 + 3);
    for (let i = 0; i < wasm.length; i++) expect(maxAbsDifference(wasm[i], cpu[i])).toBeLessThan(1e-4);
    // Gradients reach the embeddings through the patched gather (non-zero rows for used tokens).
    expect(Math.max(...Array.from(wasm[1]).map(Math.abs))).toBeGreaterThan(1e-4);
  });
});
