// The KV-cached forward pass used by the sampler: a prefill over left-padded prompts, then one step per
// generated token that attends to the cached keys and values.
//
// Batch layout: R rows, each left-padded to a common width so that all rows share one cache column
// index. Row r has `pads[r]` padding columns in front; its token at column j sits at position
// j - pads[r]. Masked keys (padding, and columns not yet written) get an additive bias of -1e9: finite,
// so that a fully masked padding query stays finite instead of becoming NaN.
//
// The cache is a preallocated buffer per layer (keys [R, H, C, hd], values transposed [R, H, hd, C] for
// the tfjs path or [R, H, C, hd] for the native one, capacity C ≥ length) that each step writes one column of in place. tfjs has no in-place update op,
// and appending with tf.concat copies the whole cache every step and layer (measured: about a third of
// a decoding step at batch 64, d128), so the sampler writes into the buffers' own storage
// (`mutableValues`). This is safe because the buffers
// never leave this module, and every tfjs backend that is supported here (wasm, cpu) runs kernels
// synchronously, so an op has read a buffer before the next write. Attention then runs over all C
// columns with the unwritten ones masked; C grows in chunks of `capacityChunk` columns so that the waste
// stays small. The native attention (sampler-native.ts) writes the column and reads only the unmasked
// columns, so the cache grows once, to the context length, when it runs. Either path runs on either
// value layout (the layout is chosen when the cache is made; tests alternate the paths on one cache).
//
// Shapes: d = dModel, H = heads, hd = d / H, C = capacity, V = vocab.

import { tf } from './runtime.ts';
import { nativeDecodeAttention, samplerNativeActive } from './sampler-native.ts';
import { headLogits, mlpBlock, normLinear, residualLinear, type SamplerWeights } from './sampler-weights.ts';

export interface KvCache {
  keys: tf.Tensor4D[]; // per layer [R, H, C, hd]
  values: tf.Tensor4D[]; // per layer [R, H, C, hd], or [R, H, hd, C] when valuesTransposed
  /** The tfjs path's value layout (see decodeStep); the native attention reads [C, hd] blocks faster. */
  valuesTransposed: boolean;
  /** Columns written so far (the same for every row). */
  length: number;
  /** Padding columns in front of each row. */
  pads: number[];
}

const maskedBias = -1e9;
/** Columns added to the cache buffers when they are full. */
export const capacityChunk = 32;

/** The storage of a float32 tensor, writable in place (wasm: a view into the heap; cpu: its array). */
function mutableValues(tensor: tf.Tensor): Float32Array {
  const backend = tf.backend() as unknown as {
    typedArrayFromHeap?: (tensor: tf.Tensor) => Float32Array;
    data?: { get(dataId: object): { values?: Float32Array } };
  };
  // Re-read at every call: the wasm heap's ArrayBuffer changes when the heap grows.
  if (backend.typedArrayFromHeap) return backend.typedArrayFromHeap(tensor);
  const values = backend.data?.get(tensor.dataId)?.values;
  if (!(values instanceof Float32Array))
    throw new Error(`sampler: backend '${tf.getBackend()}' is not supported`);
  return values;
}

/** Additive attention mask [R, 1, 1, C]: 0 where pads[r] ≤ column < length, else -1e9. */
function attentionBias(pads: readonly number[], length: number, capacity: number): tf.Tensor4D {
  const values = new Float32Array(pads.length * capacity).fill(maskedBias);
  pads.forEach((pad, row) => {
    values.fill(0, row * capacity + pad, row * capacity + length);
  });
  return tf.tensor4d(values, [pads.length, 1, 1, capacity]);
}

/**
 * Runs the prompts through the model. `tokens` is [P, W] row-major (left-padded), `pads[p]` the padding
 * of prompt p. Returns the next-token logits [P, V] of each prompt's last token, and keys and values
 * per layer [P, H, W, hd].
 */
export function prefill(
  weights: SamplerWeights,
  tokens: Int32Array,
  pads: readonly number[],
): { logits: tf.Tensor2D; keys: tf.Tensor4D[]; values: tf.Tensor4D[] } {
  const { dModel: d, heads: H } = weights.config;
  const rows = pads.length;
  const width = tokens.length / rows;
  const positions = new Int32Array(rows * width);
  const causal = new Float32Array(rows * width * width); // [P, 1, W, W]
  for (let r = 0; r < rows; r++) {
    for (let j = 0; j < width; j++) {
      positions[r * width + j] = Math.max(0, j - pads[r]);
      const base = (r * width + j) * width;
      for (let k = 0; k < width; k++) if (k > j || k < pads[r]) causal[base + k] = maskedBias;
    }
  }
  return tf.tidy(() => {
    const mask = tf.tensor4d(causal, [rows, 1, width, width]);
    let x = tf
      .gather(weights.tokenEmbedding, tf.tensor1d(tokens, 'int32'))
      .add(tf.gather(weights.positionEmbedding, tf.tensor1d(positions, 'int32'))) as tf.Tensor2D;
    const toHeads = (t: tf.Tensor) =>
      t.reshape([rows, width, H, d / H]).transpose([0, 2, 1, 3]) as tf.Tensor4D;
    const keys: tf.Tensor4D[] = [];
    const values: tf.Tensor4D[] = [];
    for (const layer of weights.layers) {
      const qkv = normLinear(x, layer.qkvWeight, layer.qkvBias); // [P·W, 3d]
      const [q, k, v] = tf.split(qkv, 3, 1).map(toHeads); // each [P, H, W, hd]; q is pre-scaled
      const scores = tf.matMul(q, k, false, true).add(mask); // [P, H, W, W]
      const attended = tf
        .matMul(tf.softmax(scores), v)
        .transpose([0, 2, 1, 3])
        .reshape([rows * width, d]) as tf.Tensor2D;
      x = residualLinear(x, attended, layer.projectionWeight, layer.projectionBias);
      x = mlpBlock(x, layer);
      keys.push(k);
      values.push(v);
    }
    // The last column holds every prompt's last token (left padding).
    const last = x
      .reshape([rows, width, d])
      .slice([0, width - 1, 0], [rows, 1, d])
      .reshape([rows, d]);
    const logits = headLogits(weights, last as tf.Tensor2D);
    return { logits, keys, values };
  });
}

/**
 * Builds the batch cache from a prefill: row r copies the keys and values of prompt `promptOfRow[r]`,
 * with room for `capacityChunk` more columns.
 */
export function cacheFromPrefill(
  keys: tf.Tensor4D[],
  values: tf.Tensor4D[],
  promptOfRow: readonly number[],
  promptPads: readonly number[],
): KvCache {
  const width = keys[0].shape[2];
  const valuesTransposed = !samplerNativeActive();
  const rows = () => tf.tensor1d(Int32Array.from(promptOfRow), 'int32');
  const expandKeys = (tensor: tf.Tensor4D): tf.Tensor4D =>
    tf.tidy(() => tf.gather(tensor, rows()).pad(padding(2)));
  const expandValues = (tensor: tf.Tensor4D): tf.Tensor4D =>
    tf.tidy(() =>
      valuesTransposed
        ? tf.gather(tensor, rows()).transpose([0, 1, 3, 2]).pad(padding(3))
        : tf.gather(tensor, rows()).pad(padding(2)),
    );
  return {
    keys: keys.map(expandKeys),
    values: values.map(expandValues),
    valuesTransposed,
    length: width,
    pads: promptOfRow.map((prompt) => promptPads[prompt]),
  };
}

/** Padding spec that appends `columns` columns along `axis` of a 4-D tensor. */
function padding(axis: number, columns = capacityChunk): [number, number][] {
  return [0, 1, 2, 3].map((i) => [0, i === axis ? columns : 0]);
}

/** Appends `columns` empty columns to every buffer (a copy). */
function growCache(cache: KvCache, columns: number): void {
  const grow =
    (axis: number) =>
    (tensor: tf.Tensor4D): tf.Tensor4D => {
      const grown: tf.Tensor4D = tensor.pad(padding(axis, columns));
      tensor.dispose();
      return grown;
    };
  cache.keys = cache.keys.map(grow(2));
  cache.values = cache.values.map(grow(cache.valuesTransposed ? 3 : 2));
}

/** Writes k and v of every row, taken from qkv [R, 3d] (columns q | k | v), at column `column`. */
function writeColumn(cache: KvCache, layer: number, qkv: Float32Array, column: number): void {
  const [rows, heads, capacity, headSize] = cache.keys[layer].shape;
  const d = heads * headSize;
  const keyStore = mutableValues(cache.keys[layer]); // [R, H, C, hd]
  const valueStore = mutableValues(cache.values[layer]); // [R, H, hd, C] or [R, H, C, hd]
  const valueStride = cache.valuesTransposed ? capacity : 1;
  for (let r = 0; r < rows; r++) {
    for (let h = 0; h < heads; h++) {
      const source = r * 3 * d + h * headSize;
      const keyTarget = ((r * heads + h) * capacity + column) * headSize;
      const valueTarget = cache.valuesTransposed ? (r * heads + h) * headSize * capacity + column : keyTarget;
      for (let i = 0; i < headSize; i++) {
        keyStore[keyTarget + i] = qkv[source + d + i];
        valueStore[valueTarget + i * valueStride] = qkv[source + 2 * d + i];
      }
    }
  }
}

/**
 * One decoding step: feeds `tokens[r]` at `positions[r]` for every row, writes their keys and values
 * into the cache at column `cache.length`, and returns the next-token logits [R, V].
 */
export function decodeStep(
  weights: SamplerWeights,
  cache: KvCache,
  tokens: Int32Array,
  positions: Int32Array,
): tf.Tensor2D {
  const { dModel: d, heads: H } = weights.config;
  const rows = tokens.length;
  if (cache.length === cache.keys[0].shape[2]) {
    // The native attention reads only the written columns, so empty ones cost it nothing: grow once, to
    // the context length. The tfjs path reads every column: grow by a chunk.
    const toContext = weights.config.contextLength - cache.length;
    growCache(cache, samplerNativeActive() && toContext > 0 ? toContext : capacityChunk);
  }
  const column = cache.length;
  const capacity = cache.keys[0].shape[2];
  const pads = Int32Array.from(cache.pads);
  let bias: tf.Tensor4D | undefined; // the tfjs path's mask, made on first use (inside the tidy)
  try {
    return tf.tidy(() => {
      let x = tf
        .gather(weights.tokenEmbedding, tf.tensor1d(tokens, 'int32'))
        .add(tf.gather(weights.positionEmbedding, tf.tensor1d(positions, 'int32'))) as tf.Tensor2D;
      weights.layers.forEach((layer, i) => {
        const qkv = normLinear(x, layer.qkvWeight, layer.qkvBias); // [R, 3d]
        const keys = cache.keys[i];
        const values = cache.values[i];
        // The native kernel (sampler-native.ts) writes the column and attends in one call; else tfjs.
        let attended = nativeDecodeAttention(qkv, keys, values, cache.valuesTransposed, pads, column);
        if (!attended) {
          bias ??= attentionBias(cache.pads, column + 1, capacity);
          writeColumn(cache, i, qkv.dataSync() as Float32Array, column);
          const q = qkv.slice([0, 0], [rows, d]).reshape([rows, H, 1, d / H]); // pre-scaled by 1/sqrt(hd)
          // Both products as broadcast multiply + sum over the last axis, which on wasm beats the batched
          // matmul (about 0.6 vs 0.8-1.0 ms CPU at batch 64, d128, C 96); hence V is stored transposed.
          // A cache made for the native attention (values [R, H, C, hd]) takes the matmul.
          const scores = q.mul(keys).sum(-1).reshape([rows, H, 1, capacity]).add(bias); // [R, H, 1, C]
          const probabilities = tf.softmax(scores);
          // Transposed: [R, H, hd, C] summed over C; else [R, H, 1, C] · [R, H, C, hd].
          attended = (
            cache.valuesTransposed ? probabilities.mul(values).sum(-1) : tf.matMul(probabilities, values)
          ).reshape([rows, d]) as tf.Tensor2D;
        }
        x = residualLinear(x, attended, layer.projectionWeight, layer.projectionBias);
        x = mlpBlock(x, layer);
      });
      return headLogits(weights, x);
    });
  } finally {
    cache.length++;
  }
}

/** Keeps only the given rows of the cache, in the order listed; the old buffers are disposed. */
export function selectCacheRows(cache: KvCache, rows: readonly number[]): void {
  const indices = tf.tensor1d(Int32Array.from(rows), 'int32');
  const pick = (tensor: tf.Tensor4D): tf.Tensor4D => {
    const picked = tf.gather(tensor, indices, 0);
    tensor.dispose();
    return picked;
  };
  cache.keys = cache.keys.map(pick);
  cache.values = cache.values.map(pick);
  cache.pads = rows.map((row) => cache.pads[row]);
  indices.dispose();
}

export function disposeCache(cache: KvCache): void {
  for (const tensor of [...cache.keys, ...cache.values]) tensor.dispose();
  cache.keys = [];
  cache.values = [];
}
