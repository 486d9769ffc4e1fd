// native/model.c (through native-model.ts) against the product's tfjs path, EmbeddedBackend.forwardBackward
// with gradientValues(): per-token log-probs, the loss and every parameter's gradient, for a random model
// of each preset in model-config.ts and for the shipped demo-cold checkpoint, on random variable-length
// batches (padding, zero and mixed-sign weights, both loss signs). Random models draw every parameter at
// O(1) scale (LayerNorm gains and biases too) so that no term hides behind GPT-2's init of ones and zeros.
//
// Error measure, per tensor: max |native − tfjs| / max |tfjs| (relativeError of kernel-test-helpers.ts),
// bound 1e-5; the loss against Σ |w·logp|. Measured on the batches below: ≤ 2.7e-6 for the random presets,
// 5.5e-6 for demo-cold. The checkpoint is near the limit of what two float32 paths can agree on: its
// layer-0 attention is peaky and amplifies rounding. On four batches of the same shape (seeds 5-8, padded
// with id 0), native vs tfjs reached 1.1e-5 (h.1.ln_2.bias), while against a float64 build of model.c (a
// throwaway, not in the repository) the tfjs path was off by up to 1.3e-5 and the native one by up to
// 8.4e-6. The bound stays 1e-5 on this fixed batch. model.c broken on purpose in 15 ways (causal mask
// dropped, attention backward indices shifted, LayerNorm epsilon 1e-6, GELU constant 0.0447, …) failed at
// least 4 of the 5 agreement cases. The causal attention's blocked products (model-kernels.c) broken on
// purpose: a block's P·V without its last key, dv's key blocks without their last row, dk's columns
// shifted by one — 6, 2 and 6 of the 8 cases fail.
// Skipped, with the reason, where the addon is not built or predates native/model.c.
import { describe, expect, it } from 'vitest';
import { requirement } from '../../test/requirements.ts';
import { checkpoints } from '../api/checkpoints.ts';
import type { Datum } from '../core/policy.ts';
import { relativeError } from '../testing/policy/kernel-test-helpers.ts';
import { randomData, randomValues, stubTokenizer } from '../testing/policy/test-helpers.ts';
import { EmbeddedBackend } from './embedded-backend.ts';
import { modelPresets, parameterCount } from './model-config.ts';
import {
  nativeForwardBackward,
  nativeModelEntry,
  nativeModelStatus,
  packParameters,
  unpackParameters,
} from './native-model.ts';
import { initRuntime, tf } from './runtime.ts';
import { padBatch, tokenLogprobs } from './teacher-forcing.ts';

await initRuntime('wasm');
const status = nativeModelStatus();
const native = requirement(status.available, status.reason);

const tolerance = 1e-5;

interface Agreement {
  logprobs: number;
  loss: number;
  /** The largest per-tensor gradient error, and its tensor. */
  gradient: number;
  worst: string;
}

/** Runs `data` through both paths (one micro-batch) and returns the errors; asserts what must hold exactly. */
async function compare(
  backend: EmbeddedBackend,
  data: Datum[],
  loss: 'linear' | 'cross_entropy',
): Promise<Agreement> {
  backend.zeroGradients();
  const reference = await backend.forwardBackward(data, loss);
  const referenceGradients = backend.gradientValues();
  backend.zeroGradients();
  const batch = padBatch(
    data.map((datum) => datum.tokens),
    data.map((datum) => datum.weights),
    backend.tokenizer.pad,
  );
  const result = nativeForwardBackward(backend.model, batch, loss === 'linear' ? 1 : -1);

  // Log-probs: the unpadded ones of forwardBackward, and every padded position against tokenLogprobs.
  const nativeRows = data.map((_, row) =>
    Array.from(result.logprobs.subarray(row * batch.time, row * batch.time + batch.lengths[row])),
  );
  const logprobError = relativeError(nativeRows.flat(), reference.logprobs.flat());
  const padded = tf.tidy(() =>
    tokenLogprobs(
      backend.model,
      tf.tensor2d(batch.inputs, [batch.rows, batch.time], 'int32'),
      tf.tensor2d(batch.targets, [batch.rows, batch.time], 'int32'),
    ).dataSync(),
  );
  const paddedError = relativeError(result.logprobs, padded as Float32Array);

  let scale = 0;
  data.forEach((datum, row) => {
    datum.weights.forEach((w, t) => {
      scale += Math.abs(w * reference.logprobs[row][t]);
    });
  });
  const lossError = Math.abs(result.loss - reference.loss) / scale;

  expect([...result.gradients.keys()]).toEqual([...referenceGradients.keys()]);
  let gradient = 0;
  let worst = '';
  for (const [name, expected] of referenceGradients) {
    const error = relativeError(result.gradients.get(name) as Float32Array, expected);
    if (!(error <= gradient)) {
      gradient = error;
      worst = name;
    }
  }
  return { logprobs: Math.max(logprobError, paddedError), loss: lossError, gradient, worst };
}

function expectAgreement(label: string, agreement: Agreement): void {
  console.log(
    `${label}: logprobs ${agreement.logprobs.toExponential(2)}, loss ${agreement.loss.toExponential(2)}, ` +
      `gradients ${agreement.gradient.toExponential(2)} (worst ${agreement.worst})`,
  );
  expect(agreement.logprobs).toBeLessThan(tolerance);
  expect(agreement.loss).toBeLessThan(tolerance);
  expect(agreement.gradient).toBeLessThan(tolerance);
}

/** Batch shapes per preset: rows and longest sequence (tokens), sized for a unit test. */
const presetBatches = {
  tiny: { vocab: 13, rows: 5, maxLength: 64 },
  small: { vocab: 29, rows: 4, maxLength: 64 },
  base: { vocab: 37, rows: 3, maxLength: 128 },
  large: { vocab: 61, rows: 2, maxLength: 160 },
  xl: { vocab: 67, rows: 2, maxLength: 40 },
} as const;

describe(`native forward and backward of the whole model${native.label}`, () => {
  for (const [preset, shape] of Object.entries(presetBatches)) {
    it.skipIf(native.skip)(`agrees with tfjs on a random ${preset} model`, async () => {
      const config = { vocabSize: shape.vocab, ...modelPresets[preset as keyof typeof modelPresets] };
      const backend = await EmbeddedBackend.fromContents(
        { config, weights: randomValues(config, 11), optimizer: null },
        stubTokenizer(shape.vocab),
        { maxTokensPerMicroBatch: 1 << 20 },
      );
      try {
        const data = randomData(shape.vocab, shape.rows, shape.maxLength, 3);
        expectAgreement(`${preset} linear`, await compare(backend, data, 'linear'));
        if (preset === 'tiny')
          expectAgreement(`${preset} cross_entropy`, await compare(backend, data, 'cross_entropy'));
      } finally {
        backend.dispose();
      }
    });
  }

  it.skipIf(native.skip)('agrees with tfjs on the shipped demo-cold checkpoint', async () => {
    const backend = await EmbeddedBackend.load(checkpoints.demoCold, { maxTokensPerMicroBatch: 1 << 20 });
    try {
      const data = randomData(backend.model.config.vocabSize, 4, 72, 5);
      expectAgreement('demo-cold cross_entropy', await compare(backend, data, 'cross_entropy'));
    } finally {
      backend.dispose();
    }
  });

  it.skipIf(native.skip)('adds into the gradient buffer, and leaves it alone on an error', async () => {
    const config = { vocabSize: 13, ...modelPresets.tiny };
    const backend = await EmbeddedBackend.fromContents(
      { config, weights: randomValues(config, 2), optimizer: null },
      stubTokenizer(13),
    );
    try {
      const data = randomData(13, 3, 20, 4);
      const batch = padBatch(
        data.map((datum) => datum.tokens),
        data.map((datum) => datum.weights),
        0,
      );
      const once = nativeForwardBackward(backend.model, batch, -1);
      const twice = nativeForwardBackward(backend.model, batch, -1, {
        gradients: Float32Array.from(once.flatGradients),
      });
      expect(twice.loss).toBe(once.loss);
      expect(Array.from(twice.flatGradients)).toEqual(Array.from(once.flatGradients, (g) => 2 * g));
      expect(Math.max(...Array.from(once.flatGradients, Math.abs))).toBeGreaterThan(1e-3);

      const params = packParameters(backend.model);
      const gradients = Float32Array.from(once.flatGradients);
      const badTargets = { ...batch, targets: Int32Array.from(batch.targets, (t, i) => (i === 7 ? 13 : t)) };
      expect(() => nativeForwardBackward(backend.model, badTargets, 1, { params, gradients })).toThrow(
        /targets\[7\] = 13 is outside the vocabulary \[0, 13\)/,
      );
      // A NaN in one weight of block 1: named, and nothing is added.
      const poisoned = Float32Array.from(params);
      (unpackParameters(config, poisoned).get('h.1.mlp.c_fc.weight') as Float32Array)[5] = Number.NaN;
      expect(() => nativeForwardBackward(backend.model, batch, 1, { params: poisoned, gradients })).toThrow(
        /loss is -?nan: parameter h\.1\.mlp\.c_fc\.weight holds a non-finite value/,
      );
      expect(Array.from(gradients)).toEqual(Array.from(once.flatGradients));
    } finally {
      backend.dispose();
    }
  });

  it.skipIf(native.skip)('throws a clear error on every bad argument instead of crashing', () => {
    const entry = nativeModelEntry();
    if (!entry) throw new Error('no entry point');
    const config = { vocabSize: 7, dModel: 8, layers: 1, heads: 2, contextLength: 6 };
    const size = parameterCount(config);
    const rows = 2;
    const time = 3;
    const good = () => ({
      vocab: 7,
      dModel: 8,
      layers: 1,
      heads: 2,
      context: 6,
      params: Float32Array.from({ length: size }, (_, i) => Math.sin(i)),
      gradients: new Float32Array(size),
      inputs: Int32Array.from([1, 2, 3, 4, 5, 6]),
      targets: Int32Array.from([2, 3, 4, 5, 6, 0]),
      weights: Float32Array.from([1, 0, -1, 0.5, 0, 2]),
      rows,
      time,
      logprobs: new Float32Array(rows * time),
    });
    type Args = ReturnType<typeof good>;
    const call = (args: Args | unknown[]) => {
      const list = Array.isArray(args) ? args : Object.values(args);
      return (entry as (...values: unknown[]) => number)(...list);
    };
    expect(Number.isFinite(call(good()))).toBe(true);
    const cases: [string, Partial<Args>, RegExp][] = [
      ['dModel not divisible by heads', { heads: 3 }, /heads must be an integer that divides dModel 8/],
      ['a fractional size', { dModel: 8.5 }, /dModel must be an integer/],
      ['a vocabulary of 1', { vocab: 1 }, /vocab must be an integer in \[2,/],
      ['time beyond the context', { time: 7 }, /time must be an integer in \[1, context 6\]/],
      ['zero rows', { rows: 0 }, /rows must be an integer/],
      [
        'params one short',
        { params: new Float32Array(size - 1) },
        /params must be a Float32Array of \d+ values/,
      ],
      ['params as float64', { params: new Float64Array(size) as never }, /params must be a Float32Array/],
      ['gradients too long', { gradients: new Float32Array(size + 1) }, /gradients must be a Float32Array/],
      ['inputs too short', { inputs: new Int32Array(5) }, /inputs must be an Int32Array of rows·time = 6/],
      ['targets as float32', { targets: new Float32Array(6) as never }, /targets must be an Int32Array/],
      ['weights too long', { weights: new Float32Array(7) }, /weights must be a Float32Array/],
      ['logprobs missing', { logprobs: undefined as never }, /logprobs must be a Float32Array/],
      [
        'a negative input id',
        { inputs: Int32Array.from([1, 2, 3, 4, -1, 6]) },
        /inputs\[4\] = -1 is outside/,
      ],
      [
        'an input id of vocab',
        { inputs: Int32Array.from([7, 2, 3, 4, 5, 6]) },
        /inputs\[0\] = 7 is outside the vocabulary \[0, 7\)/,
      ],
      [
        'an infinite weight',
        { weights: Float32Array.from([1, 0, Infinity, 0, 0, 0]) },
        /weights\[2\] is not finite/,
      ],
      ['too many tokens per call', { rows: 1 << 20, time: 5 }, /exceeds 4194304 tokens per call/],
    ];
    for (const [label, overrides, message] of cases)
      expect(() => call({ ...good(), ...overrides }), label).toThrow(message);
    const aliased = good();
    expect(() => call({ ...aliased, gradients: aliased.params })).toThrow(/must not share memory/);
    expect(() => call(Object.values(good()).slice(0, 12))).toThrow(/expected 13 to 16 arguments, got 12/);
    // The optional entropy arguments: null is "none"; anything else must be a Float32Array of rows·time.
    const withEntropy = (entropyWeights: unknown, entropies: unknown = null) => [
      ...Object.values(good()),
      1,
      entropyWeights,
      entropies,
    ];
    expect(Number.isFinite(call(withEntropy(null)))).toBe(true);
    expect(Number.isFinite(call(withEntropy(new Float32Array(6), new Float32Array(6))))).toBe(true);
    expect(() => call(withEntropy(new Float32Array(5)))).toThrow(
      /entropyWeights must be null or a Float32Array of rows·time = 6/,
    );
    expect(() => call(withEntropy(Float32Array.from([0, 0, Number.NaN, 0, 0, 0])))).toThrow(
      /entropyWeights\[2\] is not finite/,
    );
    expect(() => call(withEntropy(null, new Float64Array(6)))).toThrow(
      /entropies must be null or a Float32Array/,
    );
    const shared = good();
    expect(() => call([...Object.values(shared), 1, null, shared.logprobs])).toThrow(
      /entropies must not share memory/,
    );
    // Valid shapes whose activations (attention probabilities: 2^22 tokens × 64 heads × 4096 keys) exceed
    // the arena's 8 GiB: refused before anything is allocated.
    const wide = { vocabSize: 2, dModel: 64, layers: 1, heads: 64, contextLength: 4096 };
    const tokens = 1 << 22;
    const huge = {
      ...good(),
      vocab: 2,
      dModel: 64,
      heads: 64,
      context: 4096,
      params: new Float32Array(parameterCount(wide)),
      gradients: new Float32Array(parameterCount(wide)),
      inputs: new Int32Array(tokens),
      targets: new Int32Array(tokens),
      weights: new Float32Array(tokens),
      rows: tokens / 4096,
      time: 4096,
      logprobs: new Float32Array(tokens),
    };
    expect(() => call(huge)).toThrow(/MiB of activations per thread exceed the 8192 MiB limit/);
  });
});
