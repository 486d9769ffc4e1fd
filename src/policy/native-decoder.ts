// The KV-cached sampler on native/model-decode.c (policy.engine 'native'): a TokenDecoder
// (sampler-decoder.ts) whose prefill and steps are one addon call each, over the packed canonical-order
// weights (native-model.ts packParameters) and a key/value cache of plain Float32Arrays [L, R, H, C, hd]
// that this object owns. The cache is made once per sampling call with room for every column any row
// will reach, so a step never copies it; dropping finished rows (keepRows) copies the kept rows' blocks.
//
// The prefill runs the P distinct prompts once and copies each prompt's cache rows to its n rows, as the
// tfjs decoder does. native-decoder.test.ts checks the logits of both engines against each other.
import type { ModelConfig } from './model-config.ts';
import { loadedNativeAddon } from './native-kernels.ts';
import { nativeModelAvailable, nativeModelStatus } from './native-model.ts';
import { type DecoderFactory, promptOfRows, repeatRows, type TokenDecoder } from './sampler-decoder.ts';

/** native/model-decode.c's entry point; its comment documents the arguments. */
export type ModelDecode = (
  vocab: number,
  dModel: number,
  layers: number,
  heads: number,
  context: number,
  params: Float32Array,
  keys: Float32Array,
  values: Float32Array,
  capacity: number,
  rows: number,
  width: number,
  tokens: Int32Array,
  positions: Int32Array,
  pads: Int32Array,
  column: number,
  logits: Float32Array,
  threads?: number,
) => void;

let entry: ModelDecode | undefined;

/** The addon's modelDecode, or an Error saying why there is none (an addon built before it: rebuild). */
export function nativeDecodeEntry(): ModelDecode {
  if (entry) return entry;
  if (!nativeModelAvailable()) throw new Error(`native decoding unavailable: ${nativeModelStatus().reason}`);
  const addon = loadedNativeAddon() as { modelDecode?: ModelDecode } | undefined;
  if (!addon?.modelDecode)
    throw new Error(
      'native decoding unavailable: the addon was built before native/model-decode.c; rebuild it with `npm run build:native`',
    );
  entry = addon.modelDecode;
  return entry;
}

/** Whether the addon has native/model-decode.c (policy.engine 'native' samples with it). */
export function nativeDecodeAvailable(): boolean {
  try {
    nativeDecodeEntry();
    return true;
  } catch {
    return false;
  }
}

class NativeDecoder implements TokenDecoder {
  private readonly decode = nativeDecodeEntry();
  private keys = new Float32Array(0);
  private values = new Float32Array(0);
  private capacity = 0;
  /** Columns written so far (the same for every row). */
  private length = 0;
  private pads = new Int32Array(0);

  constructor(
    private readonly config: ModelConfig,
    private readonly params: Float32Array,
    private readonly threads: number,
  ) {}

  /** Floats of one row's block in one layer: H·C·hd = C·d. */
  private get rowBlock(): number {
    return this.capacity * this.config.dModel;
  }

  private run(
    rows: number,
    width: number,
    tokens: Int32Array,
    positions: Int32Array,
    column: number,
  ): Float32Array {
    const { vocabSize, dModel, layers, heads, contextLength } = this.config;
    const logits = new Float32Array(rows * vocabSize);
    this.decode(
      vocabSize,
      dModel,
      layers,
      heads,
      contextLength,
      this.params,
      this.keys,
      this.values,
      this.capacity,
      rows,
      width,
      tokens,
      positions,
      this.pads,
      column,
      logits,
      this.threads,
    );
    return logits;
  }

  prefill(padded: Int32Array, pads: readonly number[], n: number, columns: number): Float32Array {
    const prompts = pads.length;
    const width = padded.length / prompts;
    this.capacity = Math.max(width, columns);
    const size = this.config.layers * prompts * this.rowBlock;
    this.keys = new Float32Array(size);
    this.values = new Float32Array(size);
    this.pads = Int32Array.from(pads);
    const positions = new Int32Array(padded.length);
    for (let p = 0; p < prompts; p++)
      for (let j = 0; j < width; j++) positions[p * width + j] = Math.max(0, j - pads[p]);
    const promptLogits = this.run(prompts, width, padded, positions, 0);
    this.length = width;
    const promptOfRow = promptOfRows(prompts, n);
    this.selectRows(promptOfRow, prompts);
    return repeatRows(promptLogits, this.config.vocabSize, promptOfRow);
  }

  step(tokens: Int32Array, positions: Int32Array): Float32Array {
    if (tokens.length !== this.pads.length)
      throw new Error(`sampler: ${tokens.length} tokens for a batch of ${this.pads.length} rows`);
    if (this.length >= this.capacity)
      throw new Error(`sampler: the native cache is full (${this.capacity} columns)`);
    const logits = this.run(tokens.length, 1, tokens, positions, this.length);
    this.length++;
    return logits;
  }

  keepRows(slots: readonly number[]): void {
    this.selectRows(slots, this.pads.length);
  }

  /** The cache of rows `sources` (indices into the current `from` rows), in that order. */
  private selectRows(sources: readonly number[], from: number): void {
    const block = this.rowBlock;
    const pick = (old: Float32Array) => {
      const picked = new Float32Array(this.config.layers * sources.length * block);
      for (let l = 0; l < this.config.layers; l++)
        sources.forEach((source, row) => {
          const at = (l * from + source) * block;
          picked.set(old.subarray(at, at + block), (l * sources.length + row) * block);
        });
      return picked;
    };
    this.keys = pick(this.keys);
    this.values = pick(this.values);
    this.pads = Int32Array.from(sources, (source) => this.pads[source]);
  }

  dispose(): void {
    this.keys = new Float32Array(0);
    this.values = new Float32Array(0);
  }
}

/**
 * The native engine for sampleWithKvCache: `params()` gives the packed weights of the model being sampled
 * (called once per sampling call); `threads` split each call's rows.
 */
export function nativeDecoder(params: () => Float32Array, threads = 1): DecoderFactory {
  return (model) => new NativeDecoder(model.config, params(), threads);
}
