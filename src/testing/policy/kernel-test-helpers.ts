// Test support for the kernel tests (runtime, native-kernels, native-elementwise, native-fused, sampler-native):
// seeded random data, the relative error the comparisons use, and one tiny-model computation whose logits and parameter gradients two kernel paths must agree on.
import { Rng } from '../../core/rng.ts';
import { forwardLogits, TransformerModel } from '../../policy/model.ts';
import { tf } from '../../policy/runtime.ts';

/** `size` standard-normal float32 values from a seeded Rng. */
export function randomArray(size: number, seed: number): Float32Array {
  const rng = new Rng(seed);
  return Float32Array.from({ length: size }, () => rng.normal());
}

/** A float32 tensor of `shape` holding randomArray's values, each passed through `map`. */
export function randomTensor(
  shape: number[],
  seed: number,
  map: (value: number) => number = (v) => v,
): tf.Tensor {
  return tf.tensor(
    randomArray(
      shape.reduce((p, n) => p * n, 1),
      seed,
    ).map(map),
    shape,
  );
}

/** max |x − y| / max |y|: the error relative to the reference's scale (the absolute error if y is all 0). */
export function relativeError(x: ArrayLike<number>, y: ArrayLike<number>): number {
  if (x.length !== y.length) throw new Error(`length ${x.length} vs ${y.length}`);
  let difference = 0;
  let scale = 0;
  for (let i = 0; i < x.length; i++) {
    difference = Math.max(difference, Math.abs(x[i] - y[i]));
    scale = Math.max(scale, Math.abs(y[i]));
  }
  return scale === 0 ? difference : difference / scale;
}

/**
 * A 2-layer tiny model on a batch of 2 × 8 tokens on the current backend: [logits, ...the gradient of every
 * parameter] of a loss that touches every logit with a different weight (1 + 2 + 12 · 2 + 3 arrays).
 */
export function tinyModelLogitsAndGradients(): Float32Array[] {
  const config = { vocabSize: 13, dModel: 16, layers: 2, heads: 4, contextLength: 8 };
  const tokens = [
    [1, 5, 12, 3, 3, 7, 0, 9],
    [2, 2, 11, 4, 6, 8, 10, 1],
  ];
  const model = TransformerModel.create(config, new Rng(5));
  const outputs = tf.tidy(() => {
    const input = tf.tensor2d(tokens, [2, 8], 'int32');
    const probe = tf.tensor(randomArray(2 * 8 * 13, 9), [2, 8, 13]);
    const lossOf = () => tf.sum(tf.mul(tf.logSoftmax(forwardLogits(model, input)), probe)) as tf.Scalar;
    const { grads } = tf.variableGrads(lossOf, [...model.params.values()]);
    const logits = forwardLogits(model, input).dataSync() as Float32Array;
    return [logits, ...[...model.params.values()].map((v) => grads[v.name].dataSync() as Float32Array)];
  });
  model.dispose();
  return outputs;
}

/**
 * The outer product [rows, 1] ⊗ [1, columns] through `product` (tf.matMul or tf.mul give the same values)
 * with an output larger than the whole wasm heap: allocating it must grow the memory, which replaces the
 * heap's buffer, so a kernel that took the heap before allocating its output writes into a dead buffer.
 * Returns two corners of the result, their closed form, and whether the heap grew.
 */
export function heapGrowingOuterProduct(product: (a: tf.Tensor2D, b: tf.Tensor2D) => tf.Tensor2D): {
  corners: number[][];
  expected: number[][];
  heapGrew: boolean;
} {
  const backend = tf.backend() as unknown as { wasm: { HEAPU8: Uint8Array } };
  const heapBefore = backend.wasm.HEAPU8.length;
  const rows = 256;
  const columns = Math.ceil(heapBefore / 4 / rows) + 1024;
  const corners = tf.tidy(() => {
    const a = tf.tensor2d(
      Float32Array.from({ length: rows }, (_, i) => i + 1),
      [rows, 1],
    );
    const b = tf.tensor2d(
      Float32Array.from({ length: columns }, (_, j) => (j % 7) + 1),
      [1, columns],
    );
    const result = product(a, b);
    return [result.slice([0, 0], [1, 2]), result.slice([rows - 1, columns - 2], [1, 2])].map((t) =>
      Array.from(t.dataSync()),
    );
  });
  return {
    corners,
    expected: [
      [1, 2],
      [rows * (((columns - 2) % 7) + 1), rows * (((columns - 1) % 7) + 1)],
    ],
    heapGrew: backend.wasm.HEAPU8.length > heapBefore,
  };
}
