// The embedded policy network: a GPT-2-style decoder-only transformer (Radford et al. 2019; layout as in
// nanoGPT). Pre-LayerNorm blocks (eps 1e-5), learned absolute positions, causal multi-head
// self-attention, GELU (tanh approximation) MLP of width 4d, final LayerNorm, untied LM head.
//
// Deviation from GPT-2: the LM head is a separate matrix `lm_head.weight` [d, V] (not tied to `wte`).
// Parameter names follow GPT-2 / nanoGPT and every weight is stored [in, out] (applied as x @ W), so a
// checkpoint loads in PyTorch with a transpose for nn.Linear (docs/checkpoint-format.md).
//
// Init (GPT-2): every weight matrix and embedding ~ N(0, 0.02), drawn from the seeded Rng element by
// element (row-major) in the canonical parameter order below; the two residual projections (attn.c_proj,
// mlp.c_proj) are scaled by 1/sqrt(2·layers); biases 0; LayerNorm weights 1.
import type { Rng } from '../core/rng.ts';
import { type BlockWeights, block, blockParameterNames, causalMask, layerNorm, linear } from './layers.ts';
import { type ModelConfig, parseModelConfig } from './model-config.ts';
import { tf } from './runtime.ts';

export type { ModelConfig } from './model-config.ts';

type Initialiser = 'normal' | 'residualNormal' | 'zeros' | 'ones';

export interface ParameterSpec {
  name: string;
  shape: number[];
  init: Initialiser;
}

/** Every parameter of a config, in canonical order (the order of init draws and of checkpoint tensors). */
export function parameterSpecs(config: ModelConfig): ParameterSpec[] {
  const { vocabSize: v, dModel: d, layers, contextLength: t } = config;
  const specs: ParameterSpec[] = [
    { name: 'wte.weight', shape: [v, d], init: 'normal' },
    { name: 'wpe.weight', shape: [t, d], init: 'normal' },
  ];
  for (let i = 0; i < layers; i++) {
    const names = blockParameterNames(i);
    specs.push(
      { name: names.ln1Weight, shape: [d], init: 'ones' },
      { name: names.ln1Bias, shape: [d], init: 'zeros' },
      { name: names.attentionWeight, shape: [d, 3 * d], init: 'normal' },
      { name: names.attentionBias, shape: [3 * d], init: 'zeros' },
      { name: names.attentionProjectionWeight, shape: [d, d], init: 'residualNormal' },
      { name: names.attentionProjectionBias, shape: [d], init: 'zeros' },
      { name: names.ln2Weight, shape: [d], init: 'ones' },
      { name: names.ln2Bias, shape: [d], init: 'zeros' },
      { name: names.mlpWeight, shape: [d, 4 * d], init: 'normal' },
      { name: names.mlpBias, shape: [4 * d], init: 'zeros' },
      { name: names.mlpProjectionWeight, shape: [4 * d, d], init: 'residualNormal' },
      { name: names.mlpProjectionBias, shape: [d], init: 'zeros' },
    );
  }
  specs.push(
    { name: 'ln_f.weight', shape: [d], init: 'ones' },
    { name: 'ln_f.bias', shape: [d], init: 'zeros' },
    { name: 'lm_head.weight', shape: [d, v], init: 'normal' },
  );
  return specs;
}

const initStd = 0.02;

/** Initial values of all parameters (GPT-2 init), drawn from `rng` in canonical order. */
export function initialParameterValues(config: ModelConfig, rng: Rng): Map<string, Float32Array> {
  const residualScale = 1 / Math.sqrt(2 * config.layers);
  const values = new Map<string, Float32Array>();
  for (const spec of parameterSpecs(config)) {
    const size = spec.shape.reduce((product, n) => product * n, 1);
    const data = new Float32Array(size);
    if (spec.init === 'ones') data.fill(1);
    if (spec.init === 'normal' || spec.init === 'residualNormal') {
      const std = spec.init === 'normal' ? initStd : initStd * residualScale;
      for (let j = 0; j < size; j++) data[j] = rng.normal(0, std);
    }
    values.set(spec.name, data);
  }
  return values;
}

/**
 * A trainable variable holding `data`: copied from a JS array, or sharing a tensor's buffer (tf.variable
 * takes the tensor's dataId and counts a reference; the temporary tensor handle is released at once).
 */
function newVariable(data: Float32Array | tf.Tensor, shape: number[]): tf.Variable {
  if (!(data instanceof Float32Array)) return tf.variable(data, true);
  const initial = tf.tensor(data, shape, 'float32');
  const variable = tf.variable(initial, true);
  initial.dispose();
  return variable;
}

export class TransformerModel {
  readonly config: ModelConfig;
  /** Trainable weights by checkpoint name, in canonical order. */
  readonly params: Map<string, tf.Variable>;
  private readonly blocks: BlockWeights[];
  /** Additive causal mask [contextLength, contextLength]; sliced for shorter inputs. */
  private readonly mask: tf.Tensor2D;

  /**
   * Builds a model from parameter values (exact names and shapes of parameterSpecs; throws otherwise).
   * The values are copied into new tf.Variables.
   */
  constructor(config: ModelConfig, values: Map<string, Float32Array> | Map<string, tf.Tensor>) {
    this.config = parseModelConfig(config);
    const specs = parameterSpecs(this.config);
    const expected = new Set(specs.map((spec) => spec.name));
    const unexpected = [...values.keys()].filter((name) => !expected.has(name));
    if (unexpected.length > 0) throw new Error(`unexpected model parameters: ${unexpected.join(', ')}`);
    this.params = new Map();
    for (const spec of specs) {
      const data = values.get(spec.name);
      if (!data) throw new Error(`missing model parameter '${spec.name}'`);
      const size = spec.shape.reduce((product, n) => product * n, 1);
      const length = data instanceof Float32Array ? data.length : data.size;
      if (length !== size) {
        throw new Error(`parameter '${spec.name}' has ${length} values, expected ${size} (${spec.shape})`);
      }
      // Variables are left unnamed: tfjs names are global, and several models may coexist.
      this.params.set(spec.name, newVariable(data, spec.shape));
    }
    this.blocks = [];
    for (let i = 0; i < this.config.layers; i++) {
      const names = blockParameterNames(i);
      const weights = {} as Record<keyof BlockWeights, tf.Tensor>;
      for (const key of Object.keys(names) as (keyof BlockWeights)[]) weights[key] = this.param(names[key]);
      this.blocks.push(weights as BlockWeights);
    }
    this.mask = causalMask(this.config.contextLength);
  }

  /**
   * A model over the same weight buffers as `this`, without copying them. Safe because nothing writes a
   * weight buffer in place: every update (optimizer.ts, the native Adam kernel) assigns a NEW tensor to
   * the variable, which then lets go of the old buffer while the copy keeps it (tfjs reference counts
   * buffers per dataId). So the copy keeps the weights of this moment, as a save → load round trip
   * would, for a fraction of a millisecond instead of a read-back and an upload.
   */
  shareWeights(): TransformerModel {
    return new TransformerModel(this.config, new Map<string, tf.Tensor>(this.params));
  }

  /** A freshly initialised model (GPT-2 init from `rng`). */
  static create(config: ModelConfig, rng: Rng): TransformerModel {
    const parsed = parseModelConfig(config);
    return new TransformerModel(parsed, initialParameterValues(parsed, rng));
  }

  param(name: string): tf.Variable {
    const variable = this.params.get(name);
    if (!variable) throw new Error(`model has no parameter '${name}'`);
    return variable;
  }

  /** Weights of block i (views of the variables, not copies). */
  block(i: number): BlockWeights {
    const weights = this.blocks[i];
    if (!weights) throw new RangeError(`block ${i} out of range (model has ${this.config.layers})`);
    return weights;
  }

  /** Additive causal mask [T, T] for T ≤ contextLength (a new tensor; dispose or tidy it). */
  causalMask(time: number): tf.Tensor2D {
    if (time === this.config.contextLength) return tf.clone(this.mask);
    return tf.slice(this.mask, [0, 0], [time, time]);
  }

  /** Logits [B, T, V] for int32 tokens [B, T]; see forwardLogits. */
  logits(tokens: tf.Tensor2D): tf.Tensor3D {
    return forwardLogits(this, tokens);
  }

  /** Current parameter values, copied out (canonical order). */
  parameterValues(): Map<string, Float32Array> {
    const values = new Map<string, Float32Array>();
    for (const [name, variable] of this.params) values.set(name, variable.dataSync() as Float32Array);
    return values;
  }

  dispose(): void {
    for (const variable of this.params.values()) variable.dispose();
    this.mask.dispose();
  }
}

/**
 * Token + position embedding: wte[tokens] + wpe[offset .. offset+T). tokens: int32 [B, T] → [B, T, d].
 * The sampler passes `offset` = number of cached positions.
 */
export function embed(model: TransformerModel, tokens: tf.Tensor2D, offset = 0): tf.Tensor3D {
  const [, time] = tokens.shape;
  if (offset + time > model.config.contextLength) {
    throw new RangeError(`sequence of ${offset + time} tokens exceeds context ${model.config.contextLength}`);
  }
  const tokenEmbedding = tf.gather(model.param('wte.weight'), tokens); // [B, T, d]
  const positionEmbedding = tf.slice(model.param('wpe.weight'), [offset, 0], [time, model.config.dModel]);
  return tf.add(tokenEmbedding, positionEmbedding);
}

/** Final LayerNorm and LM head: hidden [B, T, d] → logits [B, T, V]. */
export function headLogits(model: TransformerModel, hidden: tf.Tensor): tf.Tensor3D {
  const normalised = layerNorm(hidden, model.param('ln_f.weight'), model.param('ln_f.bias'));
  return linear(normalised, model.param('lm_head.weight')) as tf.Tensor3D;
}

/** Embedding and every block: int32 tokens [B, T] → the residual stream [B, T, d] before ln_f. */
export function forwardHidden(model: TransformerModel, tokens: tf.Tensor2D): tf.Tensor3D {
  return tf.tidy(() => {
    const [, time] = tokens.shape;
    let x: tf.Tensor = embed(model, tokens);
    const mask = model.causalMask(time);
    for (let i = 0; i < model.config.layers; i++) x = block(x, model.block(i), model.config.heads, mask);
    return x as tf.Tensor3D;
  });
}

/** Full forward pass: int32 tokens [B, T] (T ≤ contextLength) → logits [B, T, V]. */
export function forwardLogits(model: TransformerModel, tokens: tf.Tensor2D): tf.Tensor3D {
  return tf.tidy(() => headLogits(model, forwardHidden(model, tokens)));
}
