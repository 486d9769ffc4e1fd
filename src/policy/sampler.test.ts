// The KV-cached sampler against the model's own full forward (model.ts forwardLogits, teacher forced):
// every sampled token's log-prob, under the policy and under the sampling distribution, must match a
// recomputation from scratch, for prompts of different lengths decoded in one batch. The model has
// large random weights (not GPT-2's 0.02 init) so that attention is sharp and a masking, position or
// cache mistake shows up in the numbers.
import { beforeAll, describe, expect, it } from 'vitest';
import { UserError } from '../core/errors.ts';
import type { SampledSequence, SampleOptions } from '../core/policy.ts';
import { Rng } from '../core/rng.ts';
import { forwardLogits, parameterSpecs, TransformerModel } from './model.ts';
import type { ModelConfig } from './model-config.ts';
import { initRuntime, tf } from './runtime.ts';
import { sampleWithKvCache } from './sampler.ts';
import { argmax, logSoftmax, nucleusFilter } from './sampling.ts';
import { CharTokenizer } from './tokenizer.ts';

const tokenizer = new CharTokenizer('abcdefgh ;\n'); // V = 14: PAD 0, BOS 1, EOS 2, then characters
const config: ModelConfig = {
  vocabSize: tokenizer.vocabSize,
  dModel: 32,
  layers: 2,
  heads: 4,
  contextLength: 64,
};

/** Random weights of a scale that gives peaked attention and logits; `tweak` edits them before use. */
function randomModel(seed: number, tweak?: (values: Map<string, Float32Array>) => void): TransformerModel {
  const rng = new Rng(seed);
  const values = new Map<string, Float32Array>();
  for (const spec of parameterSpecs(config)) {
    const size = spec.shape.reduce((a, b) => a * b, 1);
    const isNorm = spec.name.includes('ln_');
    const std = isNorm ? 0.2 : spec.name.endsWith('bias') ? 0.1 : 0.4;
    const mean = isNorm && spec.name.endsWith('weight') ? 1 : 0;
    values.set(
      spec.name,
      Float32Array.from({ length: size }, () => rng.normal(mean, std)),
    );
  }
  tweak?.(values);
  return new TransformerModel(config, values);
}

/** Teacher-forced logits [L, V] of one full sequence, from the model's own forward. */
function fullLogits(model: TransformerModel, sequence: number[]): Float32Array[] {
  const logits = tf.tidy(() => forwardLogits(model, tf.tensor2d([sequence], [1, sequence.length], 'int32')));
  const values = logits.dataSync() as Float32Array;
  logits.dispose();
  const V = config.vocabSize;
  return sequence.map((_, t) => values.slice(t * V, (t + 1) * V));
}

/** The same tokenizer with an EOS id that never occurs, so that rows run to maxTokens or the context. */
const noEos = Object.assign(Object.create(tokenizer), { eos: -1 }) as CharTokenizer;

const prompt = (text: string) => [tokenizer.bos, ...tokenizer.encode(text)];
const prompts = [prompt('ab'), prompt('hg fed;cba'), prompt('a;b;c;d;e;f;g;h;ab')]; // lengths 3, 11, 19

function options(overrides: Partial<SampleOptions>): SampleOptions {
  return { n: 3, temperature: 1, topP: 1, maxTokens: 40, seed: 1, ...overrides };
}

/** Asserts every sampled log-prob against the full forward of prompt + completion. */
function checkAgainstFullForward(
  model: TransformerModel,
  prompt: number[],
  sample: SampledSequence,
  temperature: number,
  topP: number,
) {
  const sequence = [...prompt, ...sample.tokens];
  expect(sequence.length).toBeLessThanOrEqual(config.contextLength);
  const logits = fullLogits(model, sequence);
  sample.tokens.forEach((token, i) => {
    const row = logits[prompt.length - 1 + i]; // predicts sequence[prompt.length + i]
    expect(Math.abs(sample.logprobs[i] - logSoftmax(row)[token])).toBeLessThan(1e-4);
    if (temperature === 0) {
      expect(token).toBe(argmax(row));
      return;
    }
    const scaled = logSoftmax(row, temperature);
    const { keep, keptMass } = nucleusFilter(scaled.map(Math.exp), topP);
    expect(keep[token]).toBe(1);
    expect(Math.abs(sample.samplingLogprobs[i] - (scaled[token] - Math.log(keptMass)))).toBeLessThan(1e-4);
  });
}

describe('sampleWithKvCache', () => {
  let model: TransformerModel;
  beforeAll(async () => {
    await initRuntime('wasm');
    model = randomModel(3);
  });

  it('gives the log-probs of a full teacher-forced forward, for prompts of different lengths', () => {
    const result = sampleWithKvCache(model, noEos, prompts, options({ seed: 5, maxTokens: 60 }));
    expect(result.map((samples) => samples.length)).toEqual([3, 3, 3]);
    let checked = 0;
    result.forEach((samples, p) => {
      for (const sample of samples) {
        checkAgainstFullForward(model, prompts[p], sample, 1, 1);
        expect(sample.samplingLogprobs).toEqual(sample.logprobs);
        checked += sample.tokens.length;
      }
    });
    // Rows end at the context limit at different steps (maxTokens 60, then 64 − 11 and 64 − 19 tokens), so the batch
    // is compacted, and the cache grows past its first chunk.
    expect(result.map((samples) => samples[0].tokens.length)).toEqual([60, 53, 45]);
    expect(checked).toBe(3 * (60 + 53 + 45));
  });

  it('returns the most likely tokens of every position, as the full forward ranks them', () => {
    const result = sampleWithKvCache(
      model,
      noEos,
      prompts,
      options({ seed: 2, maxTokens: 12, topLogprobs: 5 }),
    );
    let checked = 0;
    result.forEach((samples, p) => {
      for (const sample of samples) {
        expect(sample.topLogprobs).toHaveLength(sample.tokens.length);
        const logits = fullLogits(model, [...prompts[p], ...sample.tokens]);
        sample.tokens.forEach((_, i) => {
          const exact = logSoftmax(logits[prompts[p].length - 1 + i]);
          const ranked = Array.from(exact.keys())
            .sort((a, b) => exact[b] - exact[a] || a - b)
            .slice(0, 5);
          expect(sample.topLogprobs?.[i].map((top) => top.token)).toEqual(ranked);
          sample.topLogprobs?.[i].forEach((top) => {
            expect(Math.abs(top.logprob - exact[top.token])).toBeLessThan(1e-4);
          });
          checked++;
        });
      }
    });
    expect(checked).toBeGreaterThan(50);
    expect(
      sampleWithKvCache(model, noEos, prompts, options({ seed: 2, maxTokens: 3 }))[0][0].topLogprobs,
    ).toBeUndefined();
    expect(() => sampleWithKvCache(model, noEos, prompts, options({ topLogprobs: 21 }))).toThrow(
      /topLogprobs/,
    );
  });

  it('matches the sampling distribution under temperature and top-p', () => {
    const result = sampleWithKvCache(
      model,
      tokenizer,
      prompts,
      options({ temperature: 0.7, topP: 0.8, seed: 2 }),
    );
    result.forEach((samples, p) => {
      for (const sample of samples) checkAgainstFullForward(model, prompts[p], sample, 0.7, 0.8);
    });
    const truncated = result.flat().some((s) => s.samplingLogprobs.some((q, i) => q > s.logprobs[i] + 1e-3));
    expect(truncated).toBe(true);
  });

  it('decodes greedily at temperature 0 (argmax of the full forward), independent of seed and batch', () => {
    const batched = sampleWithKvCache(model, tokenizer, prompts, options({ temperature: 0, n: 2 }));
    batched.forEach((samples, p) => {
      checkAgainstFullForward(model, prompts[p], samples[0], 0, 1);
      expect(samples[1]).toEqual(samples[0]);
      expect(samples[0].samplingLogprobs.every((q) => q === 0)).toBe(true);
      // The same prompt alone (no left padding) gives the same tokens.
      const alone = sampleWithKvCache(
        model,
        tokenizer,
        [prompts[p]],
        options({ temperature: 0, n: 1, seed: 99 }),
      );
      expect(alone[0][0].tokens).toEqual(samples[0].tokens);
    });
  });

  it('is reproducible for a seed and differs across seeds', () => {
    const a = sampleWithKvCache(model, tokenizer, prompts, options({ seed: 11 }));
    const b = sampleWithKvCache(model, tokenizer, prompts, options({ seed: 11 }));
    const c = sampleWithKvCache(model, tokenizer, prompts, options({ seed: 12 }));
    expect(b).toEqual(a);
    expect(c.map((s) => s.map((x) => x.text))).not.toEqual(a.map((s) => s.map((x) => x.text)));
    // Samples of one prompt differ from each other.
    expect(new Set(a[0].map((s) => s.text)).size).toBeGreaterThan(1);
  });

  it('stops after a stop string and keeps it in the text', () => {
    // A free-running completion with some text (the random model also emits PAD/BOS, which decode drops).
    let seed = 21;
    let free = sampleWithKvCache(model, tokenizer, [prompts[0]], options({ n: 1, seed }))[0][0];
    while (free.text.length < 8)
      free = sampleWithKvCache(model, tokenizer, [prompts[0]], options({ n: 1, seed: ++seed }))[0][0];
    for (const stop of [free.text[5], free.text.slice(4, 7)]) {
      // The same seed must reproduce the free run up to the token that completes the stop string.
      let end = 1;
      while (!tokenizer.decode(free.tokens.slice(0, end)).includes(stop)) end++;
      const stopped = sampleWithKvCache(
        model,
        tokenizer,
        [prompts[0]],
        options({ n: 1, seed, stop: [stop] }),
      )[0][0];
      expect(stopped.stopReason).toBe('stop');
      expect(stopped.tokens).toEqual(free.tokens.slice(0, end));
      expect(stopped.text).toBe(tokenizer.decode(free.tokens.slice(0, end)));
      expect(stopped.text.endsWith(stop)).toBe(true);
      expect(stopped.logprobs).toEqual(free.logprobs.slice(0, end));
    }
  });

  it('respects maxTokens and never exceeds the context length', () => {
    const short = sampleWithKvCache(model, tokenizer, prompts, options({ maxTokens: 4 }));
    for (const sample of short.flat()) {
      expect(sample.tokens.length).toBeLessThanOrEqual(4);
      if (sample.stopReason === 'length') expect(sample.tokens.length).toBe(4);
    }
    const long = [prompt('abcdefgh;abcdefgh;abcdefgh;abcdefgh;abcdefgh;abcdefgh;abcd')]; // 59 of 64 positions
    const [samples] = sampleWithKvCache(model, tokenizer, [...long, prompts[0]], options({ maxTokens: 100 }));
    for (const sample of samples) {
      expect(long[0].length + sample.tokens.length).toBeLessThanOrEqual(config.contextLength);
      if (sample.stopReason === 'length') expect(long[0].length + sample.tokens.length).toBe(64);
      checkAgainstFullForward(model, long[0], sample, 1, 1);
    }
    const full = Array.from({ length: 64 }, (_, i) => (i === 0 ? tokenizer.bos : 3 + (i % 8)));
    const [[none]] = sampleWithKvCache(model, tokenizer, [full], options({ n: 1 }));
    expect(none).toEqual({ tokens: [], text: '', logprobs: [], samplingLogprobs: [], stopReason: 'length' });
    expect(() => sampleWithKvCache(model, tokenizer, [[...full, 3]], options({}))).toThrow(UserError);
    expect(() => sampleWithKvCache(model, tokenizer, [[]], options({}))).toThrow(UserError);
    expect(
      sampleWithKvCache(model, tokenizer, [prompts[0]], options({ maxTokens: 0, n: 1 }))[0][0].tokens,
    ).toEqual([]);
  });

  it('stops at EOS, keeps the EOS token and leaves it out of the text', () => {
    const eosModel = randomModel(3, (values) => {
      const head = values.get('lm_head.weight')!; // [d, V]: make EOS likely after a few tokens
      for (let i = 0; i < config.dModel; i++) head[i * config.vocabSize + tokenizer.eos] *= 0.2;
      for (let i = 0; i < config.dModel; i++) head[i * config.vocabSize + tokenizer.eos] += 0.05;
    });
    const result = sampleWithKvCache(eosModel, tokenizer, prompts, options({ n: 4, seed: 8 })).flat();
    const ended = result.filter((s) => s.stopReason === 'eos');
    expect(ended.length).toBeGreaterThan(0);
    for (const sample of ended) {
      expect(sample.tokens.at(-1)).toBe(tokenizer.eos);
      expect(sample.tokens.slice(0, -1)).not.toContain(tokenizer.eos);
      expect(sample.text).toBe(tokenizer.decode(sample.tokens.slice(0, -1)));
    }
    eosModel.dispose();
  });

  it('leaks no tensors', () => {
    sampleWithKvCache(model, tokenizer, prompts, options({ seed: 1 })); // warm-up allocations
    const before = tf.memory().numTensors;
    sampleWithKvCache(
      model,
      tokenizer,
      prompts,
      options({ seed: 2, temperature: 0.5, topP: 0.9, stop: [';'] }),
    );
    expect(tf.memory().numTensors).toBe(before);
  });
});

describe('sampleWithKvCache on the cpu backend', () => {
  // The cache buffers are written in place through the backend's storage; check the cpu path too.
  it('matches the full forward greedily and leaks nothing', async () => {
    await initRuntime('cpu');
    try {
      const model = randomModel(4);
      const before = tf.memory().numTensors;
      const result = sampleWithKvCache(
        model,
        noEos,
        prompts,
        options({ temperature: 0, n: 1, maxTokens: 40 }),
      );
      expect(tf.memory().numTensors).toBe(before);
      result.forEach((samples, p) => {
        checkAgainstFullForward(model, prompts[p], samples[0], 0, 1);
      });
      expect(result[0][0].tokens.length).toBe(40); // past the first cache chunk (3 + 32 columns)
      model.dispose();
    } finally {
      await initRuntime('wasm');
    }
  });
});
