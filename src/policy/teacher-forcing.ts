// Teacher-forced scoring for the embedded backend: packs variable-length sequences into right-padded
// batches and computes per-token log-probs log p(tokens[t+1] | tokens[..t]).
//
// A sequence of length L becomes L−1 input positions (tokens[0..L−2]) with targets tokens[1..L−1].
// Right padding is safe under the causal mask: a real position never attends to a later (padded) one.
// Padded positions get weight 0, so they contribute neither loss nor gradient.
import type { TransformerModel } from './model.ts';
import { forwardLogits } from './model.ts';
import { tf } from './runtime.ts';

export interface PaddedBatch {
  rows: number;
  /** Input positions per row (max L−1 over the rows). */
  time: number;
  /** int32 [rows, time]: tokens[0..L−2], then pad. */
  inputs: Int32Array;
  /** int32 [rows, time]: tokens[1..L−1], then pad. */
  targets: Int32Array;
  /** float32 [rows, time]: the caller's per-position weights, 0 on padding. */
  weights: Float32Array;
  /** L−1 for each row. */
  lengths: number[];
}

/** Packs sequences (and optional per-position weights, length L−1 each) into one padded batch. */
export function padBatch(
  sequences: readonly number[][],
  weights: readonly number[][] | null,
  pad: number,
): PaddedBatch {
  const lengths = sequences.map((sequence) => sequence.length - 1);
  const rows = sequences.length;
  const time = Math.max(1, ...lengths);
  const inputs = new Int32Array(rows * time).fill(pad);
  const targets = new Int32Array(rows * time).fill(pad);
  const weightValues = new Float32Array(rows * time);
  for (let row = 0; row < rows; row++) {
    const sequence = sequences[row];
    const base = row * time;
    for (let t = 0; t < lengths[row]; t++) {
      inputs[base + t] = sequence[t];
      targets[base + t] = sequence[t + 1];
      if (weights) weightValues[base + t] = weights[row][t];
    }
  }
  return { rows, time, inputs, targets, weights: weightValues, lengths };
}

/**
 * Groups item indices into micro-batches whose padded size (rows × longest length) stays within
 * `tokenBudget`. Items are taken longest first, so that sequences of similar length share a batch and
 * little compute goes to padding; a single item longer than the budget gets a group of its own.
 * Deterministic: ties keep input order.
 */
export function microBatches(lengths: readonly number[], tokenBudget: number): number[][] {
  const order = lengths.map((_, i) => i).sort((a, b) => lengths[b] - lengths[a] || a - b);
  const groups: number[][] = [];
  let current: number[] = [];
  let longest = 0;
  for (const index of order) {
    if (current.length > 0 && (current.length + 1) * longest > tokenBudget) {
      groups.push(current);
      current = [];
    }
    if (current.length === 0) longest = lengths[index];
    current.push(index);
  }
  if (current.length > 0) groups.push(current);
  return groups;
}

/**
 * log p(target | inputs before it) for every position: inputs, targets int32 [B, T] → float32 [B, T].
 * Computed as Σ_v logSoftmax(logits)_v · oneHot(target)_v: elementwise ops only, no gather to scatter back.
 */
export function tokenLogprobs(
  model: TransformerModel,
  inputs: tf.Tensor2D,
  targets: tf.Tensor2D,
): tf.Tensor2D {
  return tf.tidy(() => {
    const logits = forwardLogits(model, inputs); // [B, T, V]
    const logProbabilities = tf.logSoftmax(logits); // [B, T, V]
    // oneHot is built as int32 and cast: the wasm OneHot kernel ignores dtype 'float32' and writes int32
    // bits (1 reads as 1.4e-45), measured on tfjs-backend-wasm 4.22.
    const targetMask = tf.cast(tf.oneHot(targets, model.config.vocabSize), 'float32'); // [B, T, V]
    return tf.sum(tf.mul(logProbabilities, targetMask), -1) as tf.Tensor2D;
  });
}

/**
 * Per-token log-probs and each position's next-token entropy H = −Σ_v p_v·log p_v (both [B, T]), from one
 * forward pass.
 */
export function tokenLogprobsAndEntropy(
  model: TransformerModel,
  inputs: tf.Tensor2D,
  targets: tf.Tensor2D,
): { logprobs: tf.Tensor2D; entropy: tf.Tensor2D } {
  return tf.tidy(() => {
    const logProbabilities = tf.logSoftmax(forwardLogits(model, inputs)); // [B, T, V]
    const targetMask = tf.cast(tf.oneHot(targets, model.config.vocabSize), 'float32'); // see tokenLogprobs
    const logprobs = tf.sum(tf.mul(logProbabilities, targetMask), -1) as tf.Tensor2D;
    const entropy = tf.neg(tf.sum(tf.mul(tf.exp(logProbabilities), logProbabilities), -1)) as tf.Tensor2D;
    return { logprobs, entropy };
  });
}

/** Splits a flat [rows, time] array into per-row lists of the first lengths[row] values. */
export function unpadRows(values: Float32Array, time: number, lengths: readonly number[]): number[][] {
  return lengths.map((length, row) => Array.from(values.subarray(row * time, row * time + length)));
}
