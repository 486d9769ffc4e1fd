// The native sampler (native/model-decode.c through native-decoder.ts) against the product's tfjs sampler
// (sampler-decoder.ts tfjsDecoder), teacher-forced: the same prompts (left-padded, n rows each), the same
// fed tokens at every step and the same rows dropped midway, for a random O(1)-scale model of every preset
// and for the shipped demo-cold checkpoint; every call's logits must agree within 1e-5 (max |native −
// tfjs| / max |tfjs|). Then the whole sampling loop through EmbeddedBackend with policy.engine 'native',
// its thread split (rows are independent, but sgemm's rounding of a row depends on how many rows it is
// given: 1e-6 between thread counts, exact for one count), and the addon's refusals. Skipped, with the reason, where the addon is not built or
// predates native/model-decode.c.
import { describe, expect, it } from 'vitest';
import { requirement } from '../../test/requirements.ts';
import { checkpoints } from '../api/checkpoints.ts';
import { Rng } from '../core/rng.ts';
import { relativeError } from '../testing/policy/kernel-test-helpers.ts';
import { randomValues, stubTokenizer } from '../testing/policy/test-helpers.ts';
import { EmbeddedBackend } from './embedded-backend.ts';
import { modelPresets } from './model-config.ts';
import { nativeDecodeAvailable, nativeDecodeEntry, nativeDecoder } from './native-decoder.ts';
import { nativeModelStatus, packParameters } from './native-model.ts';
import { initRuntime } from './runtime.ts';
import { sampleWithKvCache } from './sampler.ts';
import { type DecoderFactory, tfjsDecoder } from './sampler-decoder.ts';
import { nativeSamplerCounts } from './sampler-native.ts';

await initRuntime('wasm');
const status = nativeModelStatus();
const native = requirement(
  status.available && nativeDecodeAvailable(),
  status.available ? 'the addon predates native/model-decode.c (npm run build:native)' : status.reason,
);
const tolerance = 1e-5;

interface Script {
  prompts: number[][];
  n: number;
  /** Tokens fed at each step, one per row of the batch at that step. */
  steps: Int32Array[];
  /** Before step `at`, keep these rows. */
  keep: { at: number; slots: number[] };
}

/** Prompts of lengths 1..maxPrompt (BOS first), n rows each, `steps` steps, two rows dropped midway. */
function script(vocab: number, maxPrompt: number, steps: number, seed: number): Script {
  const rng = new Rng(seed);
  const token = () => rng.int(3, vocab - 1);
  const lengths = [1, Math.max(1, Math.floor(maxPrompt / 2)), maxPrompt];
  const prompts = lengths.map((length) => [1, ...Array.from({ length: length - 1 }, token)]);
  const n = 2;
  const keep = { at: Math.floor(steps / 2), slots: [0, 2, 3, 5] };
  const rowsAt = (step: number) => (step < keep.at ? prompts.length * n : keep.slots.length);
  return {
    prompts,
    n,
    steps: Array.from({ length: steps }, (_, step) => Int32Array.from({ length: rowsAt(step) }, token)),
    keep,
  };
}

/** Every call's logits of one engine on the script: the prefill's, then each step's. */
function run(factory: DecoderFactory, model: EmbeddedBackend['model'], s: Script): Float32Array[] {
  const width = Math.max(...s.prompts.map((prompt) => prompt.length));
  const pads = s.prompts.map((prompt) => width - prompt.length);
  const padded = new Int32Array(s.prompts.length * width);
  s.prompts.forEach((prompt, p) => {
    padded.set(prompt, p * width + pads[p]);
  });
  let lengths = s.prompts.flatMap((prompt) => Array(s.n).fill(prompt.length) as number[]);
  const decoder = factory(model);
  try {
    const out = [decoder.prefill(padded, pads, s.n, width + s.steps.length)];
    s.steps.forEach((tokens, step) => {
      if (step === s.keep.at) {
        decoder.keepRows(s.keep.slots);
        lengths = s.keep.slots.map((slot) => lengths[slot]);
      }
      const positions = Int32Array.from(lengths, (length) =>
        Math.min(length + step, model.config.contextLength - 1),
      );
      out.push(decoder.step(tokens, positions));
    });
    return out;
  } finally {
    decoder.dispose();
  }
}

function expectAgreement(label: string, backend: EmbeddedBackend, s: Script, threads = 1): void {
  const params = packParameters(backend.model);
  const reference = run(tfjsDecoder, backend.model, s);
  const result = run(
    nativeDecoder(() => params, threads),
    backend.model,
    s,
  );
  expect(result.map((logits) => logits.length)).toEqual(reference.map((logits) => logits.length));
  const errors = result.map((logits, call) => relativeError(logits, reference[call]));
  const worst = Math.max(...errors);
  console.log(`${label}: worst logits error ${worst.toExponential(2)} over ${errors.length} calls`);
  expect(worst).toBeLessThan(tolerance);
}

const presetScripts = {
  tiny: { vocab: 13, maxPrompt: 40 },
  small: { vocab: 29, maxPrompt: 40 },
  base: { vocab: 37, maxPrompt: 100 },
  large: { vocab: 61, maxPrompt: 120 },
  xl: { vocab: 67, maxPrompt: 24 },
} as const;

async function randomBackend(preset: keyof typeof modelPresets, vocab: number, engine?: 'native') {
  const config = { vocabSize: vocab, ...modelPresets[preset] };
  return EmbeddedBackend.fromContents(
    { config, weights: randomValues(config, 11), optimizer: null },
    stubTokenizer(vocab),
    { engine },
  );
}

describe(`native KV-cached decoding${native.label}`, () => {
  for (const [preset, shape] of Object.entries(presetScripts)) {
    it.skipIf(native.skip)(`agrees with the tfjs sampler on a random ${preset} model`, async () => {
      const backend = await randomBackend(preset as keyof typeof modelPresets, shape.vocab);
      try {
        expectAgreement(preset, backend, script(shape.vocab, shape.maxPrompt, 8, 3));
      } finally {
        backend.dispose();
      }
    });
  }

  it.skipIf(native.skip)('agrees with the tfjs sampler on the shipped demo-cold checkpoint', async () => {
    const backend = await EmbeddedBackend.load(checkpoints.demoCold);
    try {
      const vocab = backend.model.config.vocabSize;
      expectAgreement('demo-cold', backend, script(vocab, 30, 12, 5));
      expectAgreement('demo-cold, 3 threads', backend, script(vocab, 30, 12, 5), 3);
    } finally {
      backend.dispose();
    }
  });

  it.skipIf(native.skip)(
    'repeats itself exactly, and agrees with itself on any number of threads',
    async () => {
      const backend = await randomBackend('small', 29);
      try {
        const params = packParameters(backend.model);
        const s = script(29, 20, 6, 8);
        const on = (threads: number) =>
          run(
            nativeDecoder(() => params, threads),
            backend.model,
            s,
          );
        const one = on(1);
        expect(on(1)).toEqual(one);
        // sgemm rounds a row differently with the number of rows it is given: 1e-6, not bit for bit.
        for (const threads of [2, 5, 16]) {
          const split = on(threads);
          expect(on(threads)).toEqual(split);
          split.forEach((logits, call) => {
            expect(relativeError(logits, one[call])).toBeLessThan(1e-6);
          });
        }
      } finally {
        backend.dispose();
      }
    },
  );

  it.skipIf(native.skip)("samples on it with policy.engine 'native', as the tfjs sampler would", async () => {
    const backend = await EmbeddedBackend.load(checkpoints.demoCold, { engine: 'native' });
    const reference = await EmbeddedBackend.load(checkpoints.demoCold);
    try {
      const prompts = ['Q: 12+7=', 'Q: 3+5=', 'Q: 41+37='].map((text) => [
        backend.tokenizer.bos,
        ...backend.tokenizer.encode(text),
      ]);
      const options = { n: 4, maxTokens: 24, temperature: 1, topP: 0.95, seed: 9, stop: ['\n'] };
      const before = nativeSamplerCounts();
      const sampled = await backend.sample(prompts, options);
      // The tfjs sampler's native kernels did not run: the native engine did.
      expect(nativeSamplerCounts()).toEqual(before);
      const expected = await reference.sample(prompts, options);
      expect(sampled.map((rows) => rows.map((row) => row.tokens))).toEqual(
        expected.map((rows) => rows.map((row) => row.tokens)),
      );
      expect(sampled.map((rows) => rows.map((row) => row.stopReason))).toEqual(
        expected.map((rows) => rows.map((row) => row.stopReason)),
      );
      const logprobs = (result: typeof sampled) => result.flat().flatMap((row) => row.logprobs);
      expect(relativeError(logprobs(sampled), logprobs(expected))).toBeLessThan(1e-4);
      // The same call through sampleWithKvCache with an explicit decoder gives the same sequences.
      const params = packParameters(backend.model);
      const direct = sampleWithKvCache(
        backend.model,
        backend.tokenizer,
        prompts,
        options,
        undefined,
        nativeDecoder(() => params),
      );
      expect(direct).toEqual(sampled);
    } finally {
      backend.dispose();
      reference.dispose();
    }
  });

  it.skipIf(native.skip)('refuses bad arguments and names the block of a non-finite activation', async () => {
    const backend = await randomBackend('tiny', 13);
    try {
      const decode = nativeDecodeEntry();
      const { dModel, layers, heads, contextLength } = backend.model.config;
      const params = packParameters(backend.model);
      const cache = () => new Float32Array(layers * 2 * 8 * dModel);
      const call = (overrides: {
        params?: Float32Array;
        tokens?: Int32Array;
        pads?: Int32Array;
        column?: number;
      }) =>
        decode(
          13,
          dModel,
          layers,
          heads,
          contextLength,
          overrides.params ?? params,
          cache(),
          cache(),
          8,
          2,
          2,
          overrides.tokens ?? Int32Array.from([1, 4, 1, 5]),
          Int32Array.from([0, 1, 0, 1]),
          overrides.pads ?? Int32Array.from([0, 0]),
          overrides.column ?? 0,
          new Float32Array(2 * 13),
        );
      expect(() => call({})).not.toThrow();
      expect(() => call({ tokens: Int32Array.from([1, 13, 1, 5]) })).toThrow(/tokens\[1\] = 13 is outside/);
      expect(() => call({ pads: Int32Array.from([0, 2]) })).toThrow(/pads\[1\] = 2 is not in/);
      expect(() => call({ column: 7 })).toThrow(/column must be an integer in \[0, capacity − width = 6\]/);
      expect(() => call({ params: params.subarray(1) })).toThrow(/params must be a Float32Array of/);
      const broken = Float32Array.from(params);
      // The first weight of block 1's c_attn (after wte, wpe and block 0): block h.1 is named.
      const blockSize = 12 * dModel * dModel + 13 * dModel;
      broken[13 * dModel + contextLength * dModel + blockSize + 2 * dModel] = Number.NaN;
      expect(() => call({ params: broken })).toThrow(/non-finite activation in the output of block h\.1/);
    } finally {
      backend.dispose();
    }
  });
});
