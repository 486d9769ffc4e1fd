// Pure layer functions of the GPT-2-style decoder, shared by the training forward pass (model.ts) and the
// KV-cached sampler (sampler.ts). Every function takes tensors and returns a new tensor; none disposes
// its inputs, so callers wrap them in tf.tidy. Weights are stored [in, out] and applied as x @ W.
//
// Shapes: B batch, T query positions, S key positions, d model width, H heads, hd = d / H.
import {
  fusedGelu,
  fusedGeluGrad,
  fusedLayerNorm,
  fusedLayerNormGrad,
  fusedMaskedSoftmax,
  fusedMaskedSoftmaxHandles,
  fusedSoftmaxGrad,
} from './native-fused.ts';
import { tf } from './runtime.ts';

export const layerNormEpsilon = 1e-5;

/** Additive mask value for disallowed attention positions (large and finite, so no inf − inf = NaN). */
export const maskedScore = -1e9;

/**
 * LayerNorm over the last axis: (x − mean) / sqrt(var + 1e-5) · weight + bias (biased variance).
 * The gradient is written out (the standard LayerNorm backward) instead of traced through ~9 elementwise
 * ops: fewer kernels and fewer saved tensors per step. With x̂ the normalised input and r = 1/σ:
 *   dx = r · (g − mean(g) − x̂ · mean(g · x̂)),  g = dy · weight;  dweight = Σ dy · x̂;  dbias = Σ dy.
 * Where the native addon is active, forward and backward are one fused kernel each (native-fused.ts); the
 * tfjs composition below is the reference they are tested against.
 */
export function layerNorm(x: tf.Tensor, weight: tf.Tensor, bias: tf.Tensor): tf.Tensor {
  return layerNormWithGradient(x, weight, bias);
}

const layerNormWithGradient = tf.customGrad((...args: unknown[]) => {
  const [x, weight, bias] = args as [tf.Tensor, tf.Tensor, tf.Tensor];
  const save = args[3] as tf.GradSaveFunc;
  const native = fusedLayerNorm(x, weight, bias, layerNormEpsilon);
  if (native) {
    const [value, xHat, r] = native;
    save([xHat, r, weight]);
    return {
      value,
      gradFunc: (dy: tf.Tensor | tf.Tensor[], saved: tf.Tensor[]) =>
        fusedLayerNormGrad(dy as tf.Tensor, saved[0], saved[1], saved[2]),
    };
  }
  const centred = tf.sub(x, tf.mean(x, -1, true));
  const reciprocalStd = tf.rsqrt(tf.add(tf.mean(tf.mul(centred, centred), -1, true), layerNormEpsilon)); // [.., 1]
  const normalised = tf.mul(centred, reciprocalStd);
  save([normalised, reciprocalStd, weight]);
  return {
    value: tf.add(tf.mul(normalised, weight), bias),
    gradFunc: (dy: tf.Tensor | tf.Tensor[], saved: tf.Tensor[]) => {
      const outputGradient = dy as tf.Tensor;
      const [xHat, r, gain] = saved;
      const width = xHat.shape[xHat.shape.length - 1] as number;
      const g = tf.mul(outputGradient, gain);
      const inner = tf.sub(tf.sub(g, tf.mean(g, -1, true)), tf.mul(xHat, tf.mean(tf.mul(g, xHat), -1, true)));
      const flatDy = tf.reshape(outputGradient, [-1, width]);
      return [tf.mul(inner, r), tf.sum(tf.mul(flatDy, tf.reshape(xHat, [-1, width])), 0), tf.sum(flatDy, 0)];
    },
  };
});

const geluScale = 2 * Math.sqrt(2 / Math.PI);
const geluCubic = 0.044715;

/**
 * GELU, tanh approximation: 0.5·x·(1 + tanh(sqrt(2/π)·(x + 0.044715·x³))). Computed in the identical
 * form x·sigmoid(2·sqrt(2/π)·x·(1 + 0.044715·x²)), since 0.5·(1 + tanh z) = sigmoid(2z) and wasm's sigmoid
 * is vectorised where its tanh is not; x·x, not pow. The gradient is written out:
 *   d/dx = s + x·s·(1 − s)·2·sqrt(2/π)·(1 + 3·0.044715·x²),  s = sigmoid(…).
 * Natively (native-fused.ts) both directions are one kernel each and only x is saved.
 */
export function gelu(x: tf.Tensor): tf.Tensor {
  return geluWithGradient(x);
}

const geluWithGradient = tf.customGrad((...args: unknown[]) => {
  const x = args[0] as tf.Tensor;
  const save = args[1] as tf.GradSaveFunc;
  const native = fusedGelu(x);
  if (native) {
    save([x]);
    return {
      value: native,
      gradFunc: (dy: tf.Tensor | tf.Tensor[], saved: tf.Tensor[]) => [
        fusedGeluGrad(dy as tf.Tensor, saved[0]),
      ],
    };
  }
  const squared = tf.mul(x, x);
  const gate = tf.sigmoid(tf.mul(tf.mul(x, tf.add(tf.mul(squared, geluCubic), 1)), geluScale));
  save([x, gate]);
  return {
    value: tf.mul(x, gate),
    gradFunc: (dy: tf.Tensor | tf.Tensor[], saved: tf.Tensor[]) => {
      const [input, s] = saved;
      const slope = tf.mul(tf.add(tf.mul(tf.mul(input, input), 3 * geluCubic), 1), geluScale);
      const derivative = tf.add(s, tf.mul(tf.mul(input, tf.mul(s, tf.sub(1, s))), slope));
      return [tf.mul(dy as tf.Tensor, derivative)];
    },
  };
});

/** x @ weight + bias over the last axis. x: [..., in], weight: [in, out], bias: [out] → [..., out]. */
export function linear(x: tf.Tensor, weight: tf.Tensor, bias?: tf.Tensor): tf.Tensor {
  const inFeatures = x.shape[x.shape.length - 1];
  const outFeatures = weight.shape[1] as number;
  const flat = x.rank === 2 ? (x as tf.Tensor2D) : tf.reshape(x, [-1, inFeatures]);
  const projected = tf.matMul(flat, weight as tf.Tensor2D);
  const withBias = bias ? tf.add(projected, bias) : projected;
  return x.rank === 2 ? withBias : tf.reshape(withBias, [...x.shape.slice(0, -1), outFeatures]);
}

/** The tensors of one transformer block (names `h.{i}.…` in the checkpoint). */
export interface BlockWeights {
  ln1Weight: tf.Tensor;
  ln1Bias: tf.Tensor;
  attentionWeight: tf.Tensor; // c_attn.weight [d, 3d], columns q | k | v
  attentionBias: tf.Tensor; // [3d]
  attentionProjectionWeight: tf.Tensor; // attn.c_proj.weight [d, d]
  attentionProjectionBias: tf.Tensor; // [d]
  ln2Weight: tf.Tensor;
  ln2Bias: tf.Tensor;
  mlpWeight: tf.Tensor; // mlp.c_fc.weight [d, 4d]
  mlpBias: tf.Tensor; // [4d]
  mlpProjectionWeight: tf.Tensor; // mlp.c_proj.weight [4d, d]
  mlpProjectionBias: tf.Tensor; // [d]
}

/** Checkpoint names of block i, in the order the model initialises them. */
export function blockParameterNames(i: number): Record<keyof BlockWeights, string> {
  return {
    ln1Weight: `h.${i}.ln_1.weight`,
    ln1Bias: `h.${i}.ln_1.bias`,
    attentionWeight: `h.${i}.attn.c_attn.weight`,
    attentionBias: `h.${i}.attn.c_attn.bias`,
    attentionProjectionWeight: `h.${i}.attn.c_proj.weight`,
    attentionProjectionBias: `h.${i}.attn.c_proj.bias`,
    ln2Weight: `h.${i}.ln_2.weight`,
    ln2Bias: `h.${i}.ln_2.bias`,
    mlpWeight: `h.${i}.mlp.c_fc.weight`,
    mlpBias: `h.${i}.mlp.c_fc.bias`,
    mlpProjectionWeight: `h.${i}.mlp.c_proj.weight`,
    mlpProjectionBias: `h.${i}.mlp.c_proj.bias`,
  };
}

/** [B, T, d] → [B, H, T, hd] (4-D transpose; a 5-D qkv transpose is ~15% slower per step). */
export function splitHeads(x: tf.Tensor, heads: number): tf.Tensor4D {
  const [batch, time, width] = x.shape;
  return tf.transpose(tf.reshape(x, [batch, time, heads, width / heads]), [0, 2, 1, 3]);
}

/** [B, H, T, hd] → [B, T, d]. */
export function mergeHeads(x: tf.Tensor): tf.Tensor3D {
  const [batch, heads, time, headWidth] = x.shape;
  return tf.reshape(tf.transpose(x, [0, 2, 1, 3]), [batch, time, heads * headWidth]);
}

/**
 * Query, key and value heads of normalised input h: [B, T, d] → each [B, H, T, hd]. The query is already
 * multiplied by 1/sqrt(hd) (cheaper than scaling the [B, H, T, S] scores; same math).
 */
export function queryKeyValue(
  h: tf.Tensor,
  block: BlockWeights,
  heads: number,
): { query: tf.Tensor4D; key: tf.Tensor4D; value: tf.Tensor4D } {
  const width = h.shape[h.shape.length - 1];
  const qkv = linear(h, block.attentionWeight, block.attentionBias); // [B, T, 3d]
  const [q, k, v] = tf.split(qkv, [width, width, width], -1);
  const scale = 1 / Math.sqrt(width / heads);
  return {
    query: splitHeads(tf.mul(q, scale), heads),
    key: splitHeads(k, heads),
    value: splitHeads(v, heads),
  };
}

/**
 * Softmax attention of scaled queries [B, H, T, hd] over keys/values [B, H, S, hd]. `mask` is additive and
 * broadcasts to [B, H, T, S] (0 where allowed, maskedScore where not); pass undefined when every key is
 * visible (e.g. a single new token attending to its cache). Returns [B, H, T, hd].
 */
export function attend(query: tf.Tensor, key: tf.Tensor, value: tf.Tensor, mask?: tf.Tensor): tf.Tensor4D {
  const scores = tf.matMul(query as tf.Tensor4D, key as tf.Tensor4D, false, true); // [B, H, T, S]
  const weights = (mask && maskedSoftmax(scores, mask)) || tf.softmax(mask ? tf.add(scores, mask) : scores);
  return tf.matMul(weights as tf.Tensor4D, value as tf.Tensor4D);
}

/**
 * softmax(scores + mask) as one native kernel, its gradient (to scores only: the mask is a constant) as
 * another; undefined where the native path is off or the mask is not [T, S] (then tf.add + tf.softmax).
 */
function maskedSoftmax(scores: tf.Tensor, mask: tf.Tensor): tf.Tensor | undefined {
  if (!fusedMaskedSoftmaxHandles(scores, mask)) return undefined;
  return tf.customGrad((...args: unknown[]) => {
    const save = args[1] as tf.GradSaveFunc;
    const weights = fusedMaskedSoftmax(args[0] as tf.Tensor, mask);
    save([weights]);
    return {
      value: weights,
      gradFunc: (dy: tf.Tensor | tf.Tensor[], saved: tf.Tensor[]) =>
        fusedSoftmaxGrad(dy as tf.Tensor, saved[0]),
    };
  })(scores);
}

/** Output projection of attention heads [B, H, T, hd] → [B, T, d]. */
export function attentionOutput(heads: tf.Tensor, block: BlockWeights): tf.Tensor {
  return linear(mergeHeads(heads), block.attentionProjectionWeight, block.attentionProjectionBias);
}

/** The MLP of a block (after ln_2): gelu(h @ c_fc + b) @ c_proj + b. [.., d] → [.., d]. */
export function mlp(h: tf.Tensor, block: BlockWeights): tf.Tensor {
  const hidden = gelu(linear(h, block.mlpWeight, block.mlpBias));
  return linear(hidden, block.mlpProjectionWeight, block.mlpProjectionBias);
}

/**
 * Additive causal mask [T, S] for T queries at absolute positions offset..offset+T−1 over S = offset+T
 * keys: query t may see key s iff s ≤ offset + t.
 */
export function causalMask(queries: number, offset = 0): tf.Tensor2D {
  const keys = offset + queries;
  const values = new Float32Array(queries * keys);
  for (let t = 0; t < queries; t++) {
    for (let s = offset + t + 1; s < keys; s++) values[t * keys + s] = maskedScore;
  }
  return tf.tensor2d(values, [queries, keys]);
}

/**
 * One pre-LN block without a cache: x + attn(ln_1(x)), then + mlp(ln_2(·)). x: [B, T, d]; mask: [T, T].
 */
export function block(x: tf.Tensor, weights: BlockWeights, heads: number, mask: tf.Tensor): tf.Tensor {
  const { query, key, value } = queryKeyValue(
    layerNorm(x, weights.ln1Weight, weights.ln1Bias),
    weights,
    heads,
  );
  const attended = tf.add(x, attentionOutput(attend(query, key, value, mask), weights));
  return tf.add(attended, mlp(layerNorm(attended, weights.ln2Weight, weights.ln2Bias), weights));
}
