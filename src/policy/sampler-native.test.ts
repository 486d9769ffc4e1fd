// The sampler's native kernels (sampler-native.ts, native/attention.c) against the tfjs decode path they
// replace: the logits of a prefill and of a multi-step decode with left-padded prompts of different
// lengths (crossing a cache growth and a row compaction), the two paths taking turns on one cache, and
// the tokens sampled for a fixed seed. Counters prove the native kernels ran; the addon refuses ranges
// outside the heap. Skipped, with the reason, where the addon is not built.
import { createRequire } from 'node:module';
import { afterEach, describe, expect, it } from 'vitest';
import { nativeKernels } from '../../test/requirements.ts';
import { Rng } from '../core/rng.ts';
import { relativeError } from '../testing/policy/kernel-test-helpers.ts';
import { parameterSpecs, TransformerModel } from './model.ts';
import type { ModelConfig } from './model-config.ts';
import { nativeAddonPath, setNativeKernels } from './native-kernels.ts';
import { initRuntime, tf } from './runtime.ts';
import { sampleWithKvCache } from './sampler.ts';
import { cacheFromPrefill, decodeStep, disposeCache, prefill, selectCacheRows } from './sampler-forward.ts';
import { nativeSamplerCounts, type SamplerAddon, setNativeSamplerKernels } from './sampler-native.ts';
import { samplerWeights } from './sampler-weights.ts';
import { CharTokenizer } from './tokenizer.ts';

await initRuntime('wasm');
const native = nativeKernels();

const tokenizer = new CharTokenizer('abcdefgh ;\n'); // V = 14
const config: ModelConfig = {
  vocabSize: tokenizer.vocabSize,
  dModel: 32,
  layers: 2,
  heads: 4,
  contextLength: 64,
};
/** Head size 32, which the attention kernel runs with SSE code of its own (the other config has 8). */
const head32: ModelConfig = { ...config, dModel: 64, heads: 2 };

/** Random weights large enough for sharp attention, so that a wrong column or mask shows in the logits. */
function randomModel(seed: number, modelConfig = config): TransformerModel {
  const rng = new Rng(seed);
  const values = new Map<string, Float32Array>();
  for (const spec of parameterSpecs(modelConfig)) {
    const size = spec.shape.reduce((a, b) => a * b, 1);
    const isNorm = spec.name.includes('ln_');
    const std = isNorm ? 0.2 : spec.name.endsWith('bias') ? 0.1 : 0.4;
    const mean = isNorm && spec.name.endsWith('weight') ? 1 : 0;
    values.set(
      spec.name,
      Float32Array.from({ length: size }, () => rng.normal(mean, std)),
    );
  }
  return new TransformerModel(modelConfig, values);
}

const promptTexts = ['ab', 'hg fed;cba', 'a;b;c;d;e;f;g;h;ab']; // with BOS: 3, 11, 19 tokens
const steps = 40; // crosses the first cache growth (capacityChunk 32 columns after the prompt)
const compactAfter = 12; // then keeps rows [5, 0, 3, 2] of 6, in that order

/**
 * Prefill logits, then the logits of every decoding step, of 2 rows per prompt fed fixed tokens.
 * `nativeAt(step)` says whether step uses the native kernels (-1: the prefill).
 */
function decodeLogits(model: TransformerModel, nativeAt: (step: number) => boolean): Float32Array[] {
  const weights = samplerWeights(model);
  const prompts = promptTexts.map((text) => [tokenizer.bos, ...tokenizer.encode(text)]);
  const width = Math.max(...prompts.map((prompt) => prompt.length));
  const padded = new Int32Array(prompts.length * width).fill(tokenizer.pad);
  const pads = prompts.map((prompt, p) => {
    padded.set(prompt, p * width + width - prompt.length);
    return width - prompt.length;
  });
  const outputs: Float32Array[] = [];
  try {
    setNativeSamplerKernels(nativeAt(-1));
    const first = prefill(weights, padded, pads);
    outputs.push(first.logits.dataSync() as Float32Array);
    let promptOfRow = [0, 0, 1, 1, 2, 2];
    const cache = cacheFromPrefill(first.keys, first.values, promptOfRow, pads);
    for (const tensor of [first.logits, ...first.keys, ...first.values]) tensor.dispose();
    for (let step = 0; step < steps; step++) {
      if (step === compactAfter) {
        const kept = [5, 0, 3, 2];
        selectCacheRows(cache, kept);
        promptOfRow = kept.map((row) => promptOfRow[row]);
      }
      const tokens = Int32Array.from(promptOfRow, (prompt, row) => 3 + ((prompt * 5 + row * 3 + step) % 11));
      const positions = Int32Array.from(promptOfRow, (prompt) => prompts[prompt].length + step);
      setNativeSamplerKernels(nativeAt(step));
      const logits = decodeStep(weights, cache, tokens, positions);
      outputs.push(logits.dataSync() as Float32Array);
      logits.dispose();
    }
    disposeCache(cache);
  } finally {
    weights.dispose();
    setNativeSamplerKernels(true);
  }
  return outputs;
}

describe.skipIf(native.skip)(`sampler native kernels${native.label}`, () => {
  afterEach(() => setNativeSamplerKernels(true));

  it.each([
    ['8', config],
    ['32', head32],
  ])(
    'gives the prefill and every decoding step the logits of the tfjs path (< 1e-4 relative), head size %s',
    (_, modelConfig) => {
      const model = randomModel(3, modelConfig);
      const before = nativeSamplerCounts();
      const tensorsBefore = tf.memory().numTensors;
      const native = decodeLogits(model, () => true);
      const after = nativeSamplerCounts();
      const reference = decodeLogits(model, () => false);
      expect(nativeSamplerCounts()).toEqual(after); // the reference ran no native sampler kernel
      expect(tf.memory().numTensors).toBe(tensorsBefore);
      // One attention per layer and step; per layer qkv, projection, two MLP layers, plus the head.
      expect(after.attention - before.attention).toBe(modelConfig.layers * steps);
      expect(after.linear - before.linear).toBe((steps + 1) * (4 * modelConfig.layers + 1));
      expect(native).toHaveLength(steps + 1);
      native.forEach((logits, step) => {
        expect(relativeError(logits, reference[step]), `step ${step - 1}`).toBeLessThan(1e-4);
      });
      // The fixed tokens are not what the model predicts: the logits must differ from step to step.
      expect(relativeError(reference[steps], reference[steps - 1])).toBeGreaterThan(1e-2);
      model.dispose();
    },
  );

  it('shares either cache layout with the tfjs path: alternating steps give the same logits', () => {
    const model = randomModel(4);
    const reference = decodeLogits(model, () => false);
    // The prefill (step -1) picks the layout: tfjs's transposed values first, then the native one.
    for (const nativeAt of [(step: number) => step % 2 === 0, (step: number) => step % 2 !== 0]) {
      decodeLogits(model, nativeAt).forEach((logits, step) => {
        expect(relativeError(logits, reference[step]), `step ${step - 1}`).toBeLessThan(1e-4);
      });
    }
    model.dispose();
  });

  it('samples the same tokens for a fixed seed as plain wasm (setNativeKernels(false))', () => {
    const model = randomModel(5);
    const prompts = promptTexts.map((text) => [tokenizer.bos, ...tokenizer.encode(text)]);
    const options = { n: 3, temperature: 1, topP: 0.9, maxTokens: 40, seed: 11 };
    const before = nativeSamplerCounts().attention;
    const native = sampleWithKvCache(model, tokenizer, prompts, options);
    expect(nativeSamplerCounts().attention).toBeGreaterThan(before);
    // The reference: every native kernel off (setNativeKernels, as CURRICULA_NATIVE=0), so plain wasm.
    setNativeKernels(false);
    const offCount = nativeSamplerCounts().attention;
    let reference: ReturnType<typeof sampleWithKvCache>;
    try {
      reference = sampleWithKvCache(model, tokenizer, prompts, options);
    } finally {
      setNativeKernels(true);
    }
    expect(nativeSamplerCounts().attention).toBe(offCount);
    native.flat().forEach((sample, i) => {
      const expected = reference.flat()[i];
      expect(sample.tokens).toEqual(expected.tokens);
      expect(sample.stopReason).toBe(expected.stopReason);
      sample.logprobs.forEach((logprob, t) => {
        expect(Math.abs(logprob - expected.logprobs[t])).toBeLessThan(1e-4);
      });
    });
    expect(native.flat().some((sample) => sample.tokens.length > 10)).toBe(true);
    model.dispose();
  });

  it('refuses operands outside the wasm heap and paddings beyond the column', () => {
    const addon = createRequire(import.meta.url)(nativeAddonPath) as SamplerAddon;
    // R 2, H 1, hd 2, C 4: qkv 12 floats at 0, keys 16 at 48, values 16 at 112, out 4 at 176 → 192 bytes.
    const heap = new Uint8Array(192);
    const pads = new Int32Array([0, 1]);
    const attend = (keys: number, out: number, column: number, rowPads = pads) =>
      addon.decodeAttention(heap, 0, 2, 1, 2, keys, 112, 4, column, rowPads, out, false);
    expect(() => attend(48, 176, 3)).not.toThrow();
    expect(() => attend(48, 180, 3)).toThrow(/outside the wasm heap/);
    expect(() => attend(132, 176, 3)).toThrow(/outside the wasm heap/);
    expect(() => attend(48, 176, 4)).toThrow(/column outside/);
    expect(() => attend(48, 176, 0)).toThrow(/padding/);
    expect(() => attend(48, 176, 3, new Int32Array([0]))).toThrow(/one entry per row/);
    // x [2, 2] at 0, W [2, 2] at 16, bias [2] at 32, out [2, 2] at 40 (56 bytes).
    const small = new Uint8Array(56);
    const linear = (out: number, residual: number, gelu: boolean) =>
      addon.samplerLinear(small, 0, 2, 2, true, 16, 2, 32, residual, gelu, out);
    expect(() => linear(40, -1, true)).not.toThrow();
    expect(() => linear(44, -1, false)).toThrow(/outside the wasm heap/);
    expect(() => linear(40, 48, false)).toThrow(/outside the wasm heap/);
    expect(() => linear(40, 0, true)).toThrow(/GELU and a residual/);
  });
});
