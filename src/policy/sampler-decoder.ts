// What the KV-cached sampler's loop (sampler.ts) needs from a forward engine: the next-token logits of a
// prefill and of each decoding step, over a cache the engine keeps. Two engines implement it: tfjs
// (tfjsDecoder, below: sampler-forward.ts, with the native attention and linear kernels where built) and
// native/model-decode.c (native-decoder.ts, policy.engine 'native'). Token choice stays in the loop, so
// every sampling option applies to both alike.
//
// Batch layout: the prompts are left-padded to a common width W; after the prefill the batch has P·n
// rows, row r belonging to prompt floor(r / n), and every step appends one column to every row.
import {
  cacheFromPrefill,
  decodeStep,
  disposeCache,
  type KvCache,
  prefill,
  selectCacheRows,
} from './sampler-forward.ts';
import { type SamplerModel, samplerWeights } from './sampler-weights.ts';

export interface TokenDecoder {
  /**
   * Runs the prompts `padded` [P, W] (row-major, prompt p left-padded by pads[p]) and makes the cache of
   * P·n rows; `columns` is the most columns any row will reach (W + its longest completion budget).
   * Returns the first next-token logits [P·n, V].
   */
  prefill(padded: Int32Array, pads: readonly number[], n: number, columns: number): Float32Array;
  /** Feeds tokens[b] at positions[b] to every row b of the batch; returns the next-token logits [B, V]. */
  step(tokens: Int32Array, positions: Int32Array): Float32Array;
  /** Keeps only these rows of the batch, in the order listed. */
  keepRows(slots: readonly number[]): void;
  /** Frees the cache (and the engine's copy of the weights, where it made one). */
  dispose(): void;
}

/** Makes the decoder of one sampling call from the model being sampled. */
export type DecoderFactory = (model: SamplerModel) => TokenDecoder;

/** Row r of a P·n batch copies prompt floor(r / n): the prompt of every row. */
export function promptOfRows(prompts: number, n: number): number[] {
  return Array.from({ length: prompts * n }, (_, row) => Math.floor(row / n));
}

/** The prompt logits [P, V] repeated for the n rows of each prompt: [P·n, V]. */
export function repeatRows(
  values: Float32Array,
  width: number,
  promptOfRow: readonly number[],
): Float32Array {
  const out = new Float32Array(promptOfRow.length * width);
  promptOfRow.forEach((prompt, row) => {
    out.set(values.subarray(prompt * width, (prompt + 1) * width), row * width);
  });
  return out;
}

/** The tfjs engine (sampler-forward.ts): the default, and the reference of the native one. */
export const tfjsDecoder: DecoderFactory = (model) => {
  const weights = samplerWeights(model);
  let cache: KvCache | undefined;
  return {
    prefill(padded, pads, n) {
      const first = prefill(weights, padded, pads);
      const promptLogits = first.logits.dataSync() as Float32Array; // [P, V]
      const promptOfRow = promptOfRows(pads.length, n);
      cache = cacheFromPrefill(first.keys, first.values, promptOfRow, pads);
      for (const tensor of [first.logits, ...first.keys, ...first.values]) tensor.dispose();
      return repeatRows(promptLogits, weights.config.vocabSize, promptOfRow);
    },
    step(tokens, positions) {
      if (!cache) throw new Error('sampler: step before prefill');
      const logits = decodeStep(weights, cache, tokens, positions);
      try {
        return logits.dataSync() as Float32Array;
      } finally {
        logits.dispose();
      }
    },
    keepRows(slots) {
      if (cache) selectCacheRows(cache, slots);
    },
    dispose() {
      if (cache) disposeCache(cache);
      weights.dispose();
    },
  };
};
