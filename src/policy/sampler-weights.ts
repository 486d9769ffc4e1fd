// Sampling-time view of the embedded transformer's parameters, read by their GPT-2 names
// (src/policy/model.ts: weights [in, out], x @ W, pre-LayerNorm eps 1e-5, GELU tanh approximation),
// plus the per-token building blocks of the forward pass that the KV-cached sampler runs. Written
// independently of the model's own forward, which the sampler tests use as the reference.
//
// Shapes: d = dModel, V = vocab, T = context length, N = rows of a [N, d] activation.

import { tf } from './runtime.ts';
import { nativeLinear } from './sampler-native.ts';

export interface SamplerModelConfig {
  vocabSize: number;
  dModel: number;
  layers: number;
  heads: number;
  contextLength: number;
}

/** What the sampler needs from a model: its parameters by name and its shape. */
export interface SamplerModel {
  readonly params: ReadonlyMap<string, tf.Tensor>;
  readonly config: SamplerModelConfig;
}

/** One block's weights with the LayerNorm gains and biases folded into the following matmul. */
interface FoldedLayer {
  qkvWeight: tf.Tensor2D; // [d, 3d]: diag(ln_1.weight) · c_attn.weight, q columns scaled by 1/sqrt(hd)
  qkvBias: tf.Tensor1D; // [3d]: ln_1.bias · c_attn.weight + c_attn.bias, q part scaled likewise
  projectionWeight: tf.Tensor2D; // [d, d]
  projectionBias: tf.Tensor1D;
  fcWeight: tf.Tensor2D; // [d, 4d]: diag(ln_2.weight) · c_fc.weight
  fcBias: tf.Tensor1D; // [4d]: ln_2.bias · c_fc.weight + c_fc.bias
  fcProjectionWeight: tf.Tensor2D; // [4d, d]
  fcProjectionBias: tf.Tensor1D;
}

/**
 * Sampling-time weights. LayerNorm(x)·W + b = standardise(x)·(diag(g)·W) + (β·W + b), so folding the
 * gains g and biases β into the next matmul saves two ops per LayerNorm per step; the attention scale
 * 1/sqrt(hd) is folded into the q columns. Made once per sample call; `dispose()` frees the folded
 * tensors (the embeddings are the model's own and are not disposed).
 */
export interface SamplerWeights {
  config: SamplerModelConfig;
  tokenEmbedding: tf.Tensor2D; // [V, d]
  positionEmbedding: tf.Tensor2D; // [T, d]
  layers: FoldedLayer[];
  head: tf.Tensor2D; // [d, V]: diag(ln_f.weight) · lm_head.weight
  headBias: tf.Tensor1D; // [V]: ln_f.bias · lm_head.weight
  dispose(): void;
}

const layerNormEpsilon = 1e-5;

/** diag(gain) · weight: [d] and [d, out] → [d, out]. */
function foldGain(gain: tf.Tensor, weight: tf.Tensor): tf.Tensor2D {
  return tf.tidy(() => weight.mul(gain.reshape([-1, 1])) as tf.Tensor2D);
}

/** shift · weight + bias: [d], [d, out], [out] → [out]. */
function foldShift(shift: tf.Tensor, weight: tf.Tensor, bias: tf.Tensor | null): tf.Tensor1D {
  return tf.tidy(() => {
    // A sum, not a reshaped matmul: the wasm fused matmul checks the rank its bias data was created with.
    const folded = weight.mul(shift.reshape([-1, 1])).sum(0);
    return (bias ? folded.add(bias) : folded) as tf.Tensor1D;
  });
}

/** Reads the parameters by name and folds them for sampling; throws naming the first missing one. */
export function samplerWeights(model: SamplerModel): SamplerWeights {
  const get = (name: string): tf.Tensor => {
    const tensor = model.params.get(name);
    if (!tensor) throw new Error(`sampler: model has no parameter '${name}'`);
    return tensor;
  };
  const { dModel: d, heads } = model.config;
  // Columns q | k | v of c_attn: the q block is scaled by 1/sqrt(hd).
  const columnScale = tf.tidy(() => tf.concat([tf.fill([d], 1 / Math.sqrt(d / heads)), tf.ones([2 * d])]));
  const layers: FoldedLayer[] = [];
  for (let i = 0; i < model.config.layers; i++) {
    const name = (suffix: string) => get(`h.${i}.${suffix}`);
    const qkvWeight = foldGain(name('ln_1.weight'), name('attn.c_attn.weight'));
    const qkvBias = foldShift(name('ln_1.bias'), name('attn.c_attn.weight'), name('attn.c_attn.bias'));
    layers.push({
      qkvWeight: tf.tidy(() => qkvWeight.mul(columnScale) as tf.Tensor2D),
      qkvBias: tf.tidy(() => qkvBias.mul(columnScale) as tf.Tensor1D),
      projectionWeight: name('attn.c_proj.weight') as tf.Tensor2D,
      projectionBias: name('attn.c_proj.bias') as tf.Tensor1D,
      fcWeight: foldGain(name('ln_2.weight'), name('mlp.c_fc.weight')),
      fcBias: foldShift(name('ln_2.bias'), name('mlp.c_fc.weight'), name('mlp.c_fc.bias')),
      fcProjectionWeight: name('mlp.c_proj.weight') as tf.Tensor2D,
      fcProjectionBias: name('mlp.c_proj.bias') as tf.Tensor1D,
    });
    qkvWeight.dispose();
    qkvBias.dispose();
  }
  columnScale.dispose();
  const head = foldGain(get('ln_f.weight'), get('lm_head.weight'));
  const headBias = foldShift(get('ln_f.bias'), get('lm_head.weight'), null);
  return {
    config: model.config,
    tokenEmbedding: get('wte.weight') as tf.Tensor2D,
    positionEmbedding: get('wpe.weight') as tf.Tensor2D,
    layers,
    head,
    headBias,
    dispose() {
      // Only the folded tensors belong to the sampler; the others are the model's parameters.
      for (const layer of layers)
        for (const tensor of [layer.qkvWeight, layer.qkvBias, layer.fcWeight, layer.fcBias]) tensor.dispose();
      head.dispose();
      headBias.dispose();
    },
  };
}

/** (x - mean) / sqrt(variance + eps) over the last axis, without gain and bias (they are folded). */
export function standardise(x: tf.Tensor2D): tf.Tensor2D {
  const centred = x.sub(x.mean(-1, true));
  return centred.mul(centred.square().mean(-1, true).add(layerNormEpsilon).rsqrt()) as tf.Tensor2D;
}

/** x @ W + b in one kernel. */
export function linear(x: tf.Tensor2D, weight: tf.Tensor2D, bias: tf.Tensor1D): tf.Tensor2D {
  return tf.fused.matMul({ a: x, b: weight, bias }) as tf.Tensor2D;
}

// The three shapes of linear layer in the forward pass. Each is one native kernel where the native
// kernels run (sampler-native.ts: the LayerNorm, GELU or residual fused into the matmul), else tfjs ops.

/** standardise(x) @ W + b: a linear layer after a LayerNorm (folded into W and b). */
export function normLinear(x: tf.Tensor2D, weight: tf.Tensor2D, bias: tf.Tensor1D): tf.Tensor2D {
  return nativeLinear(x, weight, bias, { standardise: true }) ?? linear(standardise(x), weight, bias);
}

/** GELU(standardise(x) @ W + b): the MLP's first layer. */
function normLinearGelu(x: tf.Tensor2D, weight: tf.Tensor2D, bias: tf.Tensor1D): tf.Tensor2D {
  return (
    nativeLinear(x, weight, bias, { standardise: true, gelu: true }) ??
    geluTanh(linear(standardise(x), weight, bias))
  );
}

/** residual + x @ W + b: a block's output projection. */
export function residualLinear(
  residual: tf.Tensor2D,
  x: tf.Tensor2D,
  weight: tf.Tensor2D,
  bias: tf.Tensor1D,
): tf.Tensor2D {
  return nativeLinear(x, weight, bias, { residual }) ?? residual.add(linear(x, weight, bias));
}

/**
 * GELU, tanh approximation: 0.5·x·(1 + tanh(u)) = x·sigmoid(2u), u = sqrt(2/π)·(x + 0.044715·x³).
 * Written with sigmoid because the wasm tanh kernel is about ten times slower than its sigmoid.
 */
function geluTanh(x: tf.Tensor2D): tf.Tensor2D {
  const c = 2 * Math.sqrt(2 / Math.PI);
  return x.mul(
    x
      .square()
      .mul(c * 0.044715)
      .add(c)
      .mul(x)
      .sigmoid(),
  );
}

/** Pre-LN MLP block with residual: x [N, d] → [N, d]. */
export function mlpBlock(x: tf.Tensor2D, layer: FoldedLayer): tf.Tensor2D {
  const hidden = normLinearGelu(x, layer.fcWeight, layer.fcBias);
  return residualLinear(x, hidden, layer.fcProjectionWeight, layer.fcProjectionBias);
}

/** Logits of the next token from final hidden states x [N, d] → [N, V]. */
export function headLogits(weights: SamplerWeights, x: tf.Tensor2D): tf.Tensor2D {
  return normLinear(x, weights.head, weights.headBias);
}
