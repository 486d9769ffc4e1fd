import { beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../core/errors.ts';
import { Rng } from '../core/rng.ts';
import { maxAbsDifference, referenceLogits } from '../testing/policy/test-helpers.ts';
import { gelu, layerNorm } from './layers.ts';
import { forwardLogits, initialParameterValues, parameterSpecs, TransformerModel } from './model.ts';
import { type ModelConfig, parameterCount, parseModelConfig } from './model-config.ts';
import { initRuntime, tf } from './runtime.ts';

const config: ModelConfig = { vocabSize: 11, dModel: 8, layers: 2, heads: 2, contextLength: 6 };

beforeAll(async () => {
  await initRuntime('wasm');
});

/** Non-trivial parameters: random LayerNorm gains/biases and biases too, so every term is exercised. */
function randomValues(seed: number): Map<string, Float32Array> {
  const rng = new Rng(seed);
  const values = new Map<string, Float32Array>();
  for (const spec of parameterSpecs(config)) {
    const size = spec.shape.reduce((a, b) => a * b, 1);
    const data = new Float32Array(size);
    for (let i = 0; i < size; i++)
      data[i] = spec.init === 'ones' ? 1 + rng.normal(0, 0.3) : rng.normal(0, 0.5);
    values.set(spec.name, data);
  }
  return values;
}

describe('TransformerModel', () => {
  it('has the GPT-2 parameter names and [in, out] shapes', () => {
    const specs = parameterSpecs(config);
    const shapes = Object.fromEntries(specs.map((spec) => [spec.name, spec.shape]));
    expect(shapes['wte.weight']).toEqual([11, 8]);
    expect(shapes['wpe.weight']).toEqual([6, 8]);
    expect(shapes['h.1.attn.c_attn.weight']).toEqual([8, 24]);
    expect(shapes['h.1.attn.c_attn.bias']).toEqual([24]);
    expect(shapes['h.0.attn.c_proj.weight']).toEqual([8, 8]);
    expect(shapes['h.0.mlp.c_fc.weight']).toEqual([8, 32]);
    expect(shapes['h.0.mlp.c_proj.weight']).toEqual([32, 8]);
    expect(shapes['ln_f.bias']).toEqual([8]);
    expect(shapes['lm_head.weight']).toEqual([8, 11]);
    expect(specs).toHaveLength(2 + 12 * 2 + 3);
    const total = specs.reduce((sum, spec) => sum + spec.shape.reduce((a, b) => a * b, 1), 0);
    expect(total).toBe(parameterCount(config));
  });

  it('initialises as GPT-2: N(0, 0.02), residual projections scaled by 1/sqrt(2·layers), reproducibly', () => {
    const big = { vocabSize: 64, dModel: 64, layers: 8, heads: 4, contextLength: 16 };
    const values = initialParameterValues(big, new Rng(3));
    const std = (data: Float32Array) => Math.sqrt(data.reduce((sum, x) => sum + x * x, 0) / data.length);
    expect(std(values.get('h.0.mlp.c_fc.weight')!)).toBeCloseTo(0.02, 3);
    expect(std(values.get('h.0.mlp.c_proj.weight')!)).toBeCloseTo(0.02 / 4, 3);
    expect(std(values.get('h.7.attn.c_proj.weight')!)).toBeCloseTo(0.02 / 4, 3);
    expect([...values.get('h.2.ln_1.weight')!].every((x) => x === 1)).toBe(true);
    expect([...values.get('h.2.attn.c_attn.bias')!].every((x) => x === 0)).toBe(true);
    const again = initialParameterValues(big, new Rng(3));
    expect(again.get('wte.weight')).toEqual(values.get('wte.weight'));
    expect(initialParameterValues(big, new Rng(4)).get('wte.weight')).not.toEqual(values.get('wte.weight'));
  });

  it('computes the same logits as an independent float64 implementation', () => {
    const values = randomValues(7);
    const model = new TransformerModel(config, values);
    const sequences = [
      [1, 4, 9, 2, 10, 3],
      [5, 5, 0, 7, 8, 1],
    ];
    const logits = forwardLogits(model, tf.tensor2d(sequences, [2, 6], 'int32'));
    expect(logits.shape).toEqual([2, 6, 11]);
    const actual = logits.dataSync();
    const expected = sequences.flatMap((tokens) => referenceLogits(config, values, tokens).flat());
    expect(maxAbsDifference(actual, expected)).toBeLessThan(2e-5);
    logits.dispose();
    // A shorter input uses a slice of the mask and of the position table.
    const short = forwardLogits(model, tf.tensor2d([sequences[0].slice(0, 3)], [1, 3], 'int32'));
    expect(
      maxAbsDifference(short.dataSync(), referenceLogits(config, values, sequences[0].slice(0, 3)).flat()),
    ).toBeLessThan(2e-5);
    short.dispose();
    model.dispose();
  });

  it('rejects a bad config and a parameter with the wrong size', () => {
    expect(() => parseModelConfig({ ...config, heads: 3 })).toThrow(ConfigError);
    expect(() => parseModelConfig({ ...config, heads: 3 })).toThrow(
      /heads: dModel must be divisible by heads/,
    );
    expect(() => parseModelConfig({ ...config, depth: 2 })).toThrow(ConfigError);
    const values = randomValues(1);
    values.set('ln_f.bias', new Float32Array(3));
    expect(() => new TransformerModel(config, values)).toThrow(/ln_f.bias.*3 values, expected 8/);
  });
});

describe('layer functions with written-out gradients', () => {
  /** The same functions traced op by op, so tfjs autodiff supplies the reference gradient. */
  const plainLayerNorm = (x: tf.Tensor, weight: tf.Tensor, bias: tf.Tensor) => {
    const centred = tf.sub(x, tf.mean(x, -1, true));
    const variance = tf.mean(tf.square(centred), -1, true);
    return tf.add(tf.mul(tf.div(centred, tf.sqrt(tf.add(variance, 1e-5))), weight), bias);
  };
  const plainGelu = (x: tf.Tensor) =>
    tf.mul(
      tf.mul(x, 0.5),
      tf.add(1, tf.tanh(tf.mul(tf.add(x, tf.mul(tf.pow(x, 3), 0.044715)), Math.sqrt(2 / Math.PI)))),
    );

  it('layerNorm and gelu match autodiff of the plain formulas in value and gradient', () => {
    const rng = new Rng(11);
    const random = (shape: number[], scale = 1) =>
      tf.tensor(
        Float32Array.from({ length: shape.reduce((a, b) => a * b, 1) }, () => rng.normal(0, scale)),
        shape,
      );
    const x = random([2, 3, 8], 2);
    const weight = random([8]);
    const bias = random([8]);
    const probe = random([2, 3, 8]);
    const lossWith =
      (f: (...inputs: tf.Tensor[]) => tf.Tensor) =>
      (...inputs: tf.Tensor[]) =>
        tf.sum(tf.mul(f(...inputs), probe)) as tf.Scalar;
    const custom = tf.grads(lossWith(layerNorm))([x, weight, bias]);
    const plain = tf.grads(lossWith(plainLayerNorm))([x, weight, bias]);
    expect(
      maxAbsDifference(layerNorm(x, weight, bias).dataSync(), plainLayerNorm(x, weight, bias).dataSync()),
    ).toBeLessThan(1e-5);
    for (let i = 0; i < 3; i++)
      expect(maxAbsDifference(custom[i].dataSync(), plain[i].dataSync())).toBeLessThan(1e-5);
    const wide = random([4, 50], 3); // covers the tails where tanh/sigmoid saturate
    expect(maxAbsDifference(gelu(wide).dataSync(), plainGelu(wide).dataSync())).toBeLessThan(1e-5);
    const geluGradient = tf.grad((input: tf.Tensor) => tf.sum(tf.mul(gelu(input), wide)))(wide);
    const plainGradient = tf.grad((input: tf.Tensor) => tf.sum(tf.mul(plainGelu(input), wide)))(wide);
    expect(maxAbsDifference(geluGradient.dataSync(), plainGradient.dataSync())).toBeLessThan(1e-4);
  });
});
