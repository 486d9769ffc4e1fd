import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, UserError } from '../core/errors.ts';
import type { Datum } from '../core/policy.ts';
import {
  maxAbsDifference,
  referenceLogprobs,
  stubTokenizer,
  stubTokenizerFromJSON,
} from '../testing/policy/test-helpers.ts';
import { EmbeddedBackend } from './embedded-backend.ts';
import { tf } from './runtime.ts';

const root = mkdtempSync(join(tmpdir(), 'curricula-backend-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const config = { vocabSize: 12, dModel: 16, layers: 2, heads: 2, contextLength: 16 };
const tokenizer = stubTokenizer(12);
const optim = { learningRate: 3e-3, weightDecay: 0.1, gradClip: 1 };

/** Variable-length data with mixed-sign weights, zero on the "prompt" positions. */
function data(): Datum[] {
  const sequences = [
    [1, 3, 4, 5, 6, 7, 8, 9, 2],
    [1, 10, 11, 3, 2],
    [1, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 2],
  ];
  return sequences.map((tokens, row) => ({
    tokens,
    weights: tokens.slice(1).map((_, t) => (t < 2 ? 0 : (row === 1 ? -0.5 : 1) / (t + 1))),
  }));
}

function flatten(values: Map<string, Float32Array>): Float32Array {
  return Float32Array.from([...values.values()].flatMap((array) => Array.from(array)));
}

describe('EmbeddedBackend', () => {
  it('scores sequences like an independent implementation, and forwardBackward reports the same log-probs', async () => {
    const backend = await EmbeddedBackend.create(config, tokenizer, 1);
    const batch = data();
    const logprobs = await backend.forward(batch.map((datum) => datum.tokens));
    const weights = backend.model.parameterValues();
    batch.forEach((datum, row) => {
      expect(logprobs[row]).toHaveLength(datum.tokens.length - 1);
      expect(maxAbsDifference(logprobs[row], referenceLogprobs(config, weights, datum.tokens))).toBeLessThan(
        1e-5,
      );
    });
    const result = await backend.forwardBackward(batch, 'cross_entropy');
    for (const row of batch.keys()) {
      expect(maxAbsDifference(result.logprobs[row], logprobs[row])).toBeLessThan(1e-6);
    }
    let expectedLoss = 0;
    batch.forEach((datum, row) => {
      datum.weights.forEach((w, t) => {
        expectedLoss -= w * logprobs[row][t];
      });
    });
    expect(result.loss).toBeCloseTo(expectedLoss, 4);
    expect(result.tokens).toBe(
      batch.reduce((n, datum) => n + datum.weights.filter((w) => w !== 0).length, 0),
    );
    backend.dispose();
  });

  it("gives 'linear' exactly the negated 'cross_entropy' gradient, and accumulates across calls", async () => {
    const backend = await EmbeddedBackend.create(config, tokenizer, 2);
    const ce = await backend.forwardBackward(data(), 'cross_entropy');
    const ceGradient = flatten(backend.gradientValues());
    backend.zeroGradients();
    const linear = await backend.forwardBackward(data(), 'linear');
    const linearGradient = flatten(backend.gradientValues());
    expect(linear.loss).toBeCloseTo(-ce.loss, 6);
    expect(Math.max(...Array.from(ceGradient).map(Math.abs))).toBeGreaterThan(1e-3);
    expect(
      maxAbsDifference(
        linearGradient,
        ceGradient.map((g) => -g),
      ),
    ).toBe(0);
    // Two half-batches accumulate to the gradient of the whole batch.
    backend.zeroGradients();
    const whole = await (async () => {
      await backend.forwardBackward(data(), 'cross_entropy');
      return flatten(backend.gradientValues());
    })();
    backend.zeroGradients();
    await backend.forwardBackward(data().slice(0, 1), 'cross_entropy');
    await backend.forwardBackward(data().slice(1), 'cross_entropy');
    expect(maxAbsDifference(flatten(backend.gradientValues()), whole)).toBeLessThan(1e-6);
    backend.dispose();
  });

  it('gives the same gradient when the batch is split into micro-batches', async () => {
    const whole = await EmbeddedBackend.create(config, tokenizer, 3);
    const split = await EmbeddedBackend.create(config, tokenizer, 3, { maxTokensPerMicroBatch: 12 });
    await whole.forwardBackward(data(), 'cross_entropy');
    const result = await split.forwardBackward(data(), 'cross_entropy');
    expect(maxAbsDifference(flatten(split.gradientValues()), flatten(whole.gradientValues()))).toBeLessThan(
      1e-6,
    );
    expect(result.logprobs.map((row) => row.length)).toEqual([8, 4, 11]);
    whole.dispose();
    split.dispose();
  });

  it('leaks no tensors across a forwardBackward + optimStep, or a forward', async () => {
    const backend = await EmbeddedBackend.create(config, tokenizer, 4);
    await backend.forwardBackward(data(), 'cross_entropy');
    await backend.optimStep(optim);
    const before = tf.memory().numTensors;
    for (let step = 0; step < 2; step++) {
      await backend.forwardBackward(data(), 'cross_entropy');
      await backend.forwardBackward(data(), 'linear');
      await backend.optimStep(optim);
      await backend.forward([data()[0].tokens]);
    }
    expect(tf.memory().numTensors).toBe(before);
    backend.dispose();
  });

  it('reproduces log-probs and the next training step bit for bit after save → load', async () => {
    const original = await EmbeddedBackend.create(config, tokenizer, 5);
    await original.forwardBackward(data(), 'cross_entropy');
    await original.optimStep(optim);
    const dir = join(root, 'saved');
    await original.save(dir);
    const loaded = await EmbeddedBackend.load(dir, { tokenizerFromJSON: stubTokenizerFromJSON });
    expect(loaded.optimizer.step).toBe(1);
    const sequences = data().map((datum) => datum.tokens);
    expect(await loaded.forward(sequences)).toEqual(await original.forward(sequences));
    for (const backend of [original, loaded]) {
      await backend.forwardBackward(data(), 'linear');
      await backend.optimStep(optim);
    }
    const a = original.model.parameterValues();
    const b = loaded.model.parameterValues();
    for (const [name, values] of a) expect(b.get(name), name).toEqual(values);
    expect(loaded.optimizer.state().v.get('wte.weight')).toEqual(
      original.optimizer.state().v.get('wte.weight'),
    );
    original.dispose();
    loaded.dispose();
  });

  it('learns a repeated sequence with cross-entropy (loss falls by more than half)', async () => {
    const backend = await EmbeddedBackend.create(config, tokenizer, 6);
    const tokens = [1, 3, 7, 4, 9, 3, 7, 4, 9, 3, 7, 4, 9, 3, 7, 2];
    const datum = { tokens, weights: tokens.slice(1).map(() => 1 / 15) };
    const losses: number[] = [];
    for (let step = 0; step < 25; step++) {
      losses.push((await backend.forwardBackward([datum], 'cross_entropy')).loss);
      await backend.optimStep({ learningRate: 1e-2 });
    }
    expect(losses[0]).toBeGreaterThan(2); // ≈ ln 12 at init
    expect(losses[24]).toBeLessThan(losses[0] / 2);
    backend.dispose();
  });

  it('samples through the KV-cached sampler with log-probs that teacher forcing reproduces', async () => {
    const backend = await EmbeddedBackend.create(config, tokenizer, 8);
    const prompts = [
      [1, 3, 4],
      [1, 5],
    ];
    const result = await backend.sample(prompts, { n: 2, temperature: 1, topP: 1, maxTokens: 6, seed: 3 });
    expect(result.map((samples) => samples.length)).toEqual([2, 2]);
    for (const [index, samples] of result.entries()) {
      for (const sample of samples) {
        const [scored] = await backend.forward([[...prompts[index], ...sample.tokens]]);
        const completion = scored.slice(prompts[index].length - 1);
        expect(maxAbsDifference(completion, sample.logprobs)).toBeLessThan(1e-5);
      }
    }
    backend.dispose();
  });

  it('rejects malformed input with a one-line user error', async () => {
    const backend = await EmbeddedBackend.create(config, tokenizer, 7);
    await expect(backend.forward([[1]])).rejects.toThrow(/sequence 0: needs at least 2 tokens/);
    await expect(backend.forward([[1, 12]])).rejects.toThrow(UserError);
    await expect(backend.forwardBackward([{ tokens: [1, 2, 3], weights: [1] }], 'linear')).rejects.toThrow(
      /datum 0: 1 weights for 3 tokens/,
    );
    await expect(backend.forward([new Array(17).fill(3)])).rejects.toThrow(
      /17 tokens exceed the context length 16/,
    );
    await expect(EmbeddedBackend.create({ ...config, vocabSize: 13 }, tokenizer, 1)).rejects.toThrow(
      ConfigError,
    );
    backend.dispose();
  });
});
