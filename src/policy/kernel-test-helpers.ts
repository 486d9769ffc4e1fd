// Test support for the kernel tests (runtime.test.ts, native-kernels.test.ts): seeded random data and one
// tiny-model computation whose logits and parameter gradients two kernel paths must agree on.
import { Rng } from '../core/rng.ts';
import { forwardLogits, TransformerModel } from './model.ts';
import { tf } from './runtime.ts';

/** `size` standard-normal float32 values from a seeded Rng. */
export function randomArray(size: number, seed: number): Float32Array {
  const rng = new Rng(seed);
  return Float32Array.from({ length: size }, () => rng.normal());
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
