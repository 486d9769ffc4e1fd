// Test support for src/policy: a tiny serialisable tokenizer stub and an independent plain-JavaScript
// (float64, loop-by-loop) implementation of the model's forward pass, written from the math in
// docs/checkpoint-format.md rather than from model.ts, so that the two can check each other; and the
// random variable-length training data and the random O(1)-scale models of the native engine's tests.
import type { Datum, SampledSequence, SampleOptions, Tokenizer } from '../../core/policy.ts';
import { Rng } from '../../core/rng.ts';
import { parameterSpecs } from '../../policy/model.ts';
import type { ModelConfig } from '../../policy/model-config.ts';

/** Ids 0..2 are pad/bos/eos; ids 3.. are the letters 'a', 'b', … */
export function stubTokenizer(vocabSize: number): Tokenizer & { toJSON(): unknown } {
  const letter = (id: number) => String.fromCharCode(97 + id - 3);
  return {
    vocabSize,
    pad: 0,
    bos: 1,
    eos: 2,
    encode: (text: string) => [...text].map((character) => character.charCodeAt(0) - 97 + 3),
    decode: (ids: readonly number[]) =>
      ids
        .filter((id) => id >= 3)
        .map(letter)
        .join(''),
    toJSON: () => ({ type: 'stub', vocabSize }),
  };
}

export function stubTokenizerFromJSON(json: unknown): Tokenizer & { toJSON(): unknown } {
  return stubTokenizer((json as { vocabSize: number }).vocabSize);
}

type Matrix = number[][];

function rows(values: Float32Array, rowCount: number, columns: number): Matrix {
  return Array.from({ length: rowCount }, (_, r) =>
    Array.from(values.subarray(r * columns, (r + 1) * columns)),
  );
}

function affine(x: number[], weight: Matrix, bias?: Float32Array): number[] {
  const out = new Array(weight[0].length).fill(0);
  for (let i = 0; i < x.length; i++) for (let j = 0; j < out.length; j++) out[j] += x[i] * weight[i][j];
  if (bias) for (let j = 0; j < out.length; j++) out[j] += bias[j];
  return out;
}

function layerNormRow(x: number[], weight: Float32Array, bias: Float32Array): number[] {
  const mean = x.reduce((a, b) => a + b, 0) / x.length;
  const variance = x.reduce((a, b) => a + (b - mean) ** 2, 0) / x.length;
  return x.map((value, i) => ((value - mean) / Math.sqrt(variance + 1e-5)) * weight[i] + bias[i]);
}

function geluTanh(x: number): number {
  return 0.5 * x * (1 + Math.tanh(Math.sqrt(2 / Math.PI) * (x + 0.044715 * x ** 3)));
}

/** Logits [T][V] of one sequence, computed position by position in float64. */
export function referenceLogits(
  config: ModelConfig,
  params: Map<string, Float32Array>,
  tokens: number[],
): Matrix {
  const { vocabSize: v, dModel: d, heads, layers } = config;
  const get = (name: string) => {
    const value = params.get(name);
    if (!value) throw new Error(`missing ${name}`);
    return value;
  };
  const headWidth = d / heads;
  const wte = rows(get('wte.weight'), v, d);
  const wpe = rows(get('wpe.weight'), config.contextLength, d);
  let x = tokens.map((token, t) => wte[token].map((value, i) => value + wpe[t][i]));
  for (let layer = 0; layer < layers; layer++) {
    const p = (name: string) => get(`h.${layer}.${name}`);
    const qkv = x.map((row) =>
      affine(
        layerNormRow(row, p('ln_1.weight'), p('ln_1.bias')),
        rows(p('attn.c_attn.weight'), d, 3 * d),
        p('attn.c_attn.bias'),
      ),
    );
    const attended = x.map(() => new Array(d).fill(0));
    for (let h = 0; h < heads; h++) {
      for (let t = 0; t < x.length; t++) {
        const q = qkv[t].slice(h * headWidth, (h + 1) * headWidth);
        const scores: number[] = [];
        for (let s = 0; s <= t; s++) {
          const k = qkv[s].slice(d + h * headWidth, d + (h + 1) * headWidth);
          scores.push(q.reduce((sum, value, i) => sum + value * k[i], 0) / Math.sqrt(headWidth));
        }
        const max = Math.max(...scores);
        const exps = scores.map((score) => Math.exp(score - max));
        const total = exps.reduce((a, b) => a + b, 0);
        for (let s = 0; s <= t; s++) {
          for (let i = 0; i < headWidth; i++)
            attended[t][h * headWidth + i] += (exps[s] / total) * qkv[s][2 * d + h * headWidth + i];
        }
      }
    }
    x = x.map((row, t) => {
      const projected = affine(attended[t], rows(p('attn.c_proj.weight'), d, d), p('attn.c_proj.bias'));
      return row.map((value, i) => value + projected[i]);
    });
    x = x.map((row) => {
      const hidden = affine(
        layerNormRow(row, p('ln_2.weight'), p('ln_2.bias')),
        rows(p('mlp.c_fc.weight'), d, 4 * d),
        p('mlp.c_fc.bias'),
      ).map(geluTanh);
      const out = affine(hidden, rows(p('mlp.c_proj.weight'), 4 * d, d), p('mlp.c_proj.bias'));
      return row.map((value, i) => value + out[i]);
    });
  }
  const head = rows(get('lm_head.weight'), d, v);
  return x.map((row) => affine(layerNormRow(row, get('ln_f.weight'), get('ln_f.bias')), head));
}

/** log p(tokens[t+1] | tokens[..t]) from reference logits, length L−1. */
export function referenceLogprobs(
  config: ModelConfig,
  params: Map<string, Float32Array>,
  tokens: number[],
): number[] {
  const logits = referenceLogits(config, params, tokens.slice(0, -1));
  return logits.map((row, t) => {
    const max = Math.max(...row);
    const logTotal = Math.log(row.reduce((sum, value) => sum + Math.exp(value - max), 0)) + max;
    return row[tokens[t + 1]] - logTotal;
  });
}

/** Largest |a − b| over two equally long arrays (throws when lengths differ). */
export function maxAbsDifference(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length) throw new Error(`length ${a.length} vs ${b.length}`);
  let max = 0;
  for (let i = 0; i < a.length; i++) max = Math.max(max, Math.abs(a[i] - b[i]));
  return max;
}

/**
 * `rows` random sequences of 2..maxLength tokens (the first exactly maxLength, so the batch's time is
 * maxLength − 1), with weights N(0, 1) of which about a quarter are 0.
 */
export function randomData(vocab: number, rows: number, maxLength: number, seed: number): Datum[] {
  const rng = new Rng(seed);
  return Array.from({ length: rows }, (_, row) => {
    const length = row === 0 ? maxLength : rng.int(2, maxLength);
    const tokens = Array.from({ length }, () => rng.int(0, vocab - 1));
    const weights = tokens.slice(1).map(() => (rng.next() < 0.25 ? 0 : rng.normal()));
    return { tokens, weights };
  });
}

/** Every parameter at O(1) scale: matrices N(0, 1/fan-in) (c_attn ×1.5 for peakier attention). */
export function randomValues(config: ModelConfig, seed: number): Map<string, Float32Array> {
  const rng = new Rng(seed);
  const values = new Map<string, Float32Array>();
  for (const spec of parameterSpecs(config)) {
    const size = spec.shape.reduce((p, n) => p * n, 1);
    let draw: () => number;
    if (spec.init === 'ones') draw = () => 1 + 0.2 * rng.normal();
    else if (spec.init === 'zeros') draw = () => 0.2 * rng.normal();
    else if (spec.name.startsWith('wte') || spec.name.startsWith('wpe')) draw = () => rng.normal();
    else {
      const std = (spec.name.includes('c_attn') ? 1.5 : 1) / Math.sqrt(spec.shape[0]);
      draw = () => rng.normal(0, std);
    }
    values.set(spec.name, Float32Array.from({ length: size }, draw));
  }
  return values;
}

/**
 * A stub policy's `sample` that answers one row per prompt, made to answer `options.n` rows per prompt:
 * each row is asked for separately, in order (the episode runner samples members that share a context as
 * one prompt of n rows).
 */
export function perRow(
  sample: (prompts: number[][], options: SampleOptions) => Promise<SampledSequence[][]>,
): (prompts: number[][], options: SampleOptions) => Promise<SampledSequence[][]> {
  return async (prompts, options) => {
    const rows = prompts.flatMap((prompt) => Array.from({ length: options.n }, () => prompt));
    const flat = await sample(rows, { ...options, n: 1 });
    return prompts.map((_, p) => flat.slice(p * options.n, (p + 1) * options.n).map((one) => one[0]));
  };
}
