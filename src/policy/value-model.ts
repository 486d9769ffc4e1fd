// The critic's value model: a separate copy of the embedded transformer (its trunk: embeddings, blocks and
// final LayerNorm) with a scalar head, V(s_j) = w·LN_f(h_j) + b at every position j, the value of the state
// after tokens[0..j] — the same indexing as the log-probs (position j predicts token j+1), so a
// completion's values are positions C−1 … L−2 for a context of C tokens.
//
// Separate, not a shared trunk: verl, OpenRLHF and TRL's PPO default to a separate critic (initialised from
// a checkpoint, here the run's init, as verl's critic.model.path), and a shared trunk would need the
// policy backend to return values and take a value loss — which neither the PolicyBackend contract nor
// the Tinker protocol offer (Tinker's LossFnType has no value head; SkyRL's Tinker server adds
// `ppo_critic`). So the policy update stays as it is, on either engine, and the critic trains itself with
// tfjs (autodiff through the trunk and head) and its own AdamW. The cost is a second model's memory and a
// tfjs forward and backward each step (reported as perf/time/critic_*).
//
// Head init: normal(0, 0.02) for w from Rng(seed), b = 0 (Hugging Face's Linear init, which verl's
// AutoModelForTokenClassification critic gets). The value loss is verl's compute_value_loss (from TRL):
//   L = ½ · Σ_t c_t · max((V_t − R_t)², (clip(V_t, V_old,t − ε, V_old,t + ε) − R_t)²),
// c_t = 1/(loss tokens of the batch) (token-mean), ε = the value clip (verl cliprange_value 0.5).
//
// Files (the component saves to <checkpoint>/components/critic/model): a policy checkpoint of the trunk
// (its lm_head kept, untrained, so the directory loads as any checkpoint) plus `value-head.safetensors`
// (the head and its Adam moments m./v.) and `value-head.json` {formatVersion, step}.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileDurably } from '../core/durable-files.ts';
import { CheckpointError } from '../core/errors.ts';
import { Rng } from '../core/rng.ts';
import { readCheckpoint, writeCheckpoint } from './checkpoint.ts';
import { layerNorm } from './layers.ts';
import { forwardHidden, TransformerModel } from './model.ts';
import { AdamW } from './optimizer.ts';
import { initRuntime, tf } from './runtime.ts';
import { encodeSafetensors, type NamedTensor } from './safetensors.ts';
import {
  headBias,
  headFormatVersion,
  headWeight,
  readHead,
  valueHeadFile,
  valueHeadStateFile,
} from './value-head-file.ts';

export { valueHeadFile, valueHeadStateFile };

import { microBatches, padBatch } from './teacher-forcing.ts';

/** One completion to train the critic on. */
export interface ValueRow {
  /** Context + completion. */
  tokens: readonly number[];
  /** Position of the completion's first value (context length − 1). */
  start: number;
  /** The critic's targets R_t, one per completion token. */
  returns: readonly number[];
  /** The values at sampling time (what clipping is relative to), one per completion token. */
  oldValues: readonly number[];
}

/** One completion to train a token-level reward model on (ValueModel.sequenceBceAndGradients). */
export interface ScoreRow {
  /** Context + completion. */
  tokens: readonly number[];
  /** Position of the completion's first score (context length − 1). */
  start: number;
  /** Completion tokens (scores at start … start + length − 1). */
  length: number;
  /** 1 = correct, 0 = wrong. */
  label: number;
}

export interface ValueTrainOptions {
  learningRate: number;
  /** ε of the clipped value loss (verl cliprange_value). */
  valueClip: number;
  gradClip: number;
  weightDecay: number;
  /** Largest padded micro-batch (rows × positions). */
  tokenBudget: number;
}

export interface ValueTrainResult {
  /** The value loss (½ · token mean of the clipped squared error). */
  loss: number;
  /** Share of tokens where the clipped term was the larger (verl vf_clipfrac). */
  clipfrac: number;
  gradNorm: number;
}

export class ValueModel {
  readonly trunk: TransformerModel;
  readonly tokenizer: unknown;
  private readonly weight: tf.Variable;
  private readonly bias: tf.Variable;
  readonly optimizer: AdamW;
  /** The variables the value loss reaches (lm_head is not among them). */
  private readonly trained: Map<string, tf.Variable>;

  private constructor(
    trunk: TransformerModel,
    tokenizer: unknown,
    head: { weight: Float32Array; bias: Float32Array },
  ) {
    this.trunk = trunk;
    this.tokenizer = tokenizer;
    const d = trunk.config.dModel;
    this.weight = tf.variable(tf.tensor2d(head.weight, [d, 1]), true);
    this.bias = tf.variable(tf.tensor1d(head.bias), true);
    this.trained = new Map([...trunk.params].filter(([name]) => name !== 'lm_head.weight'));
    this.trained.set(headWeight, this.weight);
    this.trained.set(headBias, this.bias);
    this.optimizer = new AdamW(new Map([...this.trained].map(([name, variable]) => [name, variable.shape])));
  }

  /**
   * The critic from a directory: a policy checkpoint (the run's init: a fresh head drawn from Rng(seed))
   * or one saved by save() (its head and the whole Adam state restored).
   */
  static async load(dir: string, seed: number): Promise<ValueModel> {
    await initRuntime('wasm');
    const contents = readCheckpoint(dir);
    const trunk = new TransformerModel(contents.config, contents.weights);
    const d = contents.config.dModel;
    const headPath = join(dir, valueHeadFile);
    if (!existsSync(headPath)) {
      const rng = new Rng(seed);
      const weight = Float32Array.from({ length: d }, () => rng.normal(0, 0.02));
      return new ValueModel(trunk, contents.tokenizer, { weight, bias: new Float32Array(1) });
    }
    const saved = readHead(dir, d);
    const model = new ValueModel(trunk, contents.tokenizer, saved.head);
    if (contents.optimizer) {
      const m = new Map([...contents.optimizer.m, ...saved.m]);
      const v = new Map([...contents.optimizer.v, ...saved.v]);
      for (const map of [m, v]) map.delete('lm_head.weight');
      model.optimizer.loadState({ step: saved.step, m, v });
    }
    return model;
  }

  /** V at every position of each sequence (L − 1 values for L tokens). */
  values(sequences: readonly (readonly number[])[], tokenBudget: number): number[][] {
    const result: number[][] = new Array(sequences.length);
    for (const { group, batch } of paddedMicroBatches(sequences, tokenBudget)) {
      const values = tf.tidy(() =>
        this.predict(tf.tensor2d(batch.inputs, [batch.rows, batch.time], 'int32')),
      );
      const data = values.dataSync() as Float32Array;
      values.dispose();
      group.forEach((index, row) => {
        result[index] = Array.from(data.subarray(row * batch.time, row * batch.time + batch.lengths[row]));
      });
    }
    return result;
  }

  /** [B, T] values of int32 inputs [B, T]. */
  private predict(inputs: tf.Tensor2D): tf.Tensor2D {
    const hidden = forwardHidden(this.trunk, inputs);
    const normalised = layerNorm(hidden, this.trunk.param('ln_f.weight'), this.trunk.param('ln_f.bias'));
    const [rows, time, d] = normalised.shape as [number, number, number];
    const flat = tf.matMul(tf.reshape(normalised, [rows * time, d]), this.weight);
    return tf.reshape(tf.add(flat, this.bias), [rows, time]) as tf.Tensor2D;
  }

  /**
   * Runs `loss` over micro-batches of `sequences` (padded to the batch's longest) and sums each one's
   * gradients by trained parameter name; `loss` returns the micro-batch's scalar.
   */
  private accumulate(
    sequences: readonly (readonly number[])[],
    tokenBudget: number,
    loss: (predicted: tf.Tensor2D, group: readonly number[], time: number) => tf.Scalar,
  ): { loss: number; gradients: Map<string, tf.Tensor> } {
    let total = 0;
    let gradients = new Map<string, tf.Tensor>();
    for (const { group, batch } of paddedMicroBatches(sequences, tokenBudget)) {
      const { value, grads } = tf.variableGrads(() => {
        const inputs = tf.tensor2d(batch.inputs, [batch.rows, batch.time], 'int32');
        return loss(this.predict(inputs), group, batch.time);
      }, [...this.trained.values()]);
      total += value.dataSync()[0];
      value.dispose();
      gradients = addGradients(gradients, this.trained, grads);
    }
    return { loss: total, gradients };
  }

  /**
   * The clipped value loss over `rows` (token-mean over every completion token) and its gradient by
   * trained parameter name (dispose the tensors, or pass them to train's optimizer step).
   */
  lossAndGradients(
    rows: readonly ValueRow[],
    valueClip: number,
    tokenBudget: number,
  ): { loss: number; clipfrac: number; gradients: Map<string, tf.Tensor> } {
    const tokens = rows.reduce((sum, row) => sum + row.returns.length, 0);
    if (tokens === 0) return { loss: 0, clipfrac: 0, gradients: new Map() };
    let clipped = 0;
    const result = this.accumulate(
      rows.map((row) => row.tokens),
      tokenBudget,
      (predicted, group, time) => {
        const size = group.length * time;
        const returns = new Float32Array(size);
        const old = new Float32Array(size);
        const weights = new Float32Array(size);
        group.forEach((index, row) => {
          const item = rows[index];
          item.returns.forEach((value, t) => {
            const at = row * time + item.start + t;
            returns[at] = value;
            old[at] = item.oldValues[t];
            weights[at] = 1 / tokens;
          });
        });
        const shape: [number, number] = [group.length, time];
        const target = tf.tensor2d(returns, shape);
        const before = tf.tensor2d(old, shape);
        const weight = tf.tensor2d(weights, shape);
        const held = tf.add(before, tf.clipByValue(tf.sub(predicted, before), -valueClip, valueClip));
        const plain = tf.square(tf.sub(predicted, target));
        const heldLoss = tf.square(tf.sub(held, target));
        const counted = tf.mul(tf.cast(tf.greater(heldLoss, plain), 'float32'), tf.sign(weight));
        clipped += tf.sum(counted).dataSync()[0];
        return tf.mul(0.5, tf.sum(tf.mul(tf.maximum(plain, heldLoss), weight))) as tf.Scalar;
      },
    );
    return { loss: result.loss, clipfrac: clipped / tokens, gradients: result.gradients };
  }

  /**
   * OREAL's token-level reward model loss over `rows` (components/token-rm): per sequence the binary
   * cross-entropy of the mean of its completion positions' scores against its label, averaged over the
   * sequences; and its gradient by trained parameter name.
   */
  sequenceBceAndGradients(
    rows: readonly ScoreRow[],
    tokenBudget: number,
  ): { loss: number; gradients: Map<string, tf.Tensor> } {
    const counted = rows.filter((row) => row.length > 0).length;
    if (counted === 0) return { loss: 0, gradients: new Map() };
    return this.accumulate(
      rows.map((row) => row.tokens),
      tokenBudget,
      (predicted, group, time) => {
        // means[row] = Σ_t mask·score / length: a [B, T] mask of 1/length on each row's completion positions.
        const averaging = new Float32Array(group.length * time);
        const labels = new Float32Array(group.length);
        const weights = new Float32Array(group.length);
        group.forEach((index, row) => {
          const item = rows[index];
          for (let t = 0; t < item.length; t++) averaging[row * time + item.start + t] = 1 / item.length;
          labels[row] = item.label;
          weights[row] = item.length > 0 ? 1 / counted : 0;
        });
        const means = tf.sum(tf.mul(predicted, tf.tensor2d(averaging, [group.length, time])), 1);
        const label = tf.tensor1d(labels);
        // BCE with logits, stable: max(z, 0) − z·y + log(1 + e^−|z|).
        const bce = tf.add(
          tf.sub(tf.relu(means), tf.mul(means, label)),
          tf.log1p(tf.exp(tf.neg(tf.abs(means)))),
        );
        return tf.sum(tf.mul(bce, tf.tensor1d(weights))) as tf.Scalar;
      },
    );
  }

  /** One AdamW step on sequenceBceAndGradients over `rows`. */
  trainSequenceBce(
    rows: readonly ScoreRow[],
    options: Omit<ValueTrainOptions, 'valueClip'>,
  ): { loss: number; gradNorm: number } {
    const { loss, gradients } = this.sequenceBceAndGradients(rows, options.tokenBudget);
    return { loss, gradNorm: this.step(gradients, options) };
  }

  /** Applies summed gradients with the model's AdamW (and disposes them); the pre-clip gradient norm. */
  private step(gradients: Map<string, tf.Tensor>, options: Omit<ValueTrainOptions, 'valueClip'>): number {
    if (gradients.size === 0) return 0;
    try {
      return this.optimizer.apply(this.trained, gradients, {
        learningRate: options.learningRate,
        gradClip: options.gradClip,
        weightDecay: options.weightDecay,
      }).gradNorm;
    } finally {
      for (const gradient of gradients.values()) gradient.dispose();
    }
  }

  /** One AdamW step on the clipped value loss over `rows`. */
  train(rows: readonly ValueRow[], options: ValueTrainOptions): ValueTrainResult {
    const { loss, clipfrac, gradients } = this.lossAndGradients(rows, options.valueClip, options.tokenBudget);
    return { loss, clipfrac, gradNorm: this.step(gradients, options) };
  }

  /** The trained parameters' current values (trunk without lm_head, then the head), copied out. */
  trainedValues(): Map<string, Float32Array> {
    return new Map([...this.trained].map(([name, variable]) => [name, variable.dataSync() as Float32Array]));
  }

  /** Sets one trained parameter entry (finite-difference tests). */
  setTrainedValue(name: string, index: number, value: number): void {
    const variable = this.trained.get(name);
    if (!variable) throw new RangeError(`the critic has no trained parameter '${name}'`);
    const data = (variable.dataSync() as Float32Array).slice();
    data[index] = value;
    tf.tidy(() => variable.assign(tf.tensor(data, variable.shape)));
  }

  /** Writes `dir` as a policy checkpoint of the trunk, then the head files into it (load() reads them). */
  save(dir: string): void {
    const state = this.optimizer.state();
    const weights = this.trunk.parameterValues();
    // lm_head is not trained: its moments stay zero in the trunk's optimizer file.
    const lmHead = weights.get('lm_head.weight')!;
    state.m.set('lm_head.weight', new Float32Array(lmHead.length));
    state.v.set('lm_head.weight', new Float32Array(lmHead.length));
    writeCheckpoint(dir, {
      config: this.trunk.config,
      weights,
      tokenizer: this.tokenizer,
      optimizer: state,
    });
    const d = this.trunk.config.dModel;
    const tensors = new Map<string, NamedTensor>();
    const weight = this.weight.dataSync() as Float32Array;
    const bias = this.bias.dataSync() as Float32Array;
    for (const [name, data, shape] of [
      [headWeight, weight, [d]],
      [headBias, bias, [1]],
    ] as const) {
      if (data.some((value) => !Number.isFinite(value))) {
        throw new CheckpointError(`cannot save the critic in ${dir}: ${name} is not finite`);
      }
      tensors.set(name, { shape: [...shape], data });
      tensors.set(`m.${name}`, { shape: [...shape], data: state.m.get(name)! });
      tensors.set(`v.${name}`, { shape: [...shape], data: state.v.get(name)! });
    }
    writeFileDurably(join(dir, valueHeadFile), encodeSafetensors(tensors, {}));
    writeFileDurably(
      join(dir, valueHeadStateFile),
      `${JSON.stringify({ formatVersion: headFormatVersion, step: state.step })}\n`,
    );
  }

  dispose(): void {
    this.trunk.dispose();
    this.weight.dispose();
    this.bias.dispose();
  }
}

/** The sequences in micro-batches of at most `tokenBudget` padded positions, each padded to its longest. */
function* paddedMicroBatches(sequences: readonly (readonly number[])[], tokenBudget: number) {
  for (const group of microBatches(
    sequences.map((tokens) => tokens.length - 1),
    tokenBudget,
  )) {
    yield {
      group,
      batch: padBatch(
        group.map((i) => [...sequences[i]]),
        null,
        0,
      ),
    };
  }
}

/** Sums a micro-batch's gradients into the running ones (names: the trained variables'). */
function addGradients(
  running: Map<string, tf.Tensor>,
  trained: ReadonlyMap<string, tf.Variable>,
  grads: Record<string, tf.Tensor>,
): Map<string, tf.Tensor> {
  const byVariable = new Map([...trained].map(([name, variable]) => [variable.name, name]));
  const next = new Map(running);
  for (const [variableName, gradient] of Object.entries(grads)) {
    const name = byVariable.get(variableName)!;
    const previous = running.get(name);
    if (previous) {
      next.set(name, tf.add(previous, gradient));
      previous.dispose();
      gradient.dispose();
    } else {
      next.set(name, gradient);
    }
  }
  return next;
}
