// The in-process PolicyBackend (src/core/policy.ts): the GPT-2-style transformer of model.ts trained with
// tfjs on the wasm backend. Objective conventions are exactly those of the contract:
//   'linear':         L =  Σ_datums Σ_t weights[t] · logp_t   (weights = dL/dlogp_t)
//   'cross_entropy':  L = −Σ_datums Σ_t weights[t] · logp_t
// forwardBackward adds dL/dθ into a gradient buffer; optimStep applies AdamW to the sum accumulated since
// the previous step and clears it. Long batches are split into micro-batches (a token budget), which
// changes only memory use, not the sum.
//
// A checkpoint (checkpoint.ts) holds weights, config, tokenizer and Adam state; a gradient buffer that
// has not been applied yet is not saved.
import { CheckpointError, ConfigError, UserError } from '../core/errors.ts';
import type {
  Datum,
  ForwardBackwardResult,
  LossKind,
  OptimOptions,
  OptimStepResult,
  PolicyBackend,
  SampledSequence,
  SampleOptions,
  Tokenizer,
} from '../core/policy.ts';
import { Rng } from '../core/rng.ts';
import { type CheckpointContents, readCheckpoint, writeCheckpoint } from './checkpoint.ts';
import { checkDatum, checkSequence } from './datum-checks.ts';
import { nativeEngineProblem } from './default-engine.ts';
import { type ModelConfig, TransformerModel } from './model.ts';
import { parseModelConfig } from './model-config.ts';
import { nativeDecoder } from './native-decoder.ts';
import { NativeGradients } from './native-gradients.ts';
import { AdamW } from './optimizer.ts';
import type { TrainEngine } from './parallel-options.ts';
import { initRuntime, type RuntimeBackend, tf } from './runtime.ts';
import { sampleWithKvCache } from './sampler.ts';
import type { DecoderFactory } from './sampler-decoder.ts';
import {
  microBatches,
  padBatch,
  tokenLogprobs,
  tokenLogprobsAndEntropy,
  unpadRows,
} from './teacher-forcing.ts';
import { CharTokenizer } from './tokenizer.ts';

/** A tokenizer that a checkpoint can store. */
export interface SerializableTokenizer extends Tokenizer {
  toJSON(): unknown;
  /** tokenizer_config.json to save beside tokenizer.json (optional). */
  tokenizerConfig?(): unknown;
}

export interface EmbeddedBackendOptions {
  /** tfjs backend (default 'wasm'; 'cpu' only for parity tests, it is ~15x slower). */
  runtime?: RuntimeBackend;
  /** Largest padded micro-batch (rows × positions) run through the model at once. Default 4096. */
  maxTokensPerMicroBatch?: number;
  /**
   * What runs forwardBackward: 'tfjs' (default; the tfjs graph with the native kernels where built) or
   * 'native' (native/model.c: the whole forward and backward in one call, native-model.ts; sampling on
   * native/model-decode.c, native-decoder.ts). forward and the optimizer are the same on both. 'native'
   * where the addon is not built is an error.
   */
  engine?: TrainEngine;
  /** With engine 'native': threads of each forwardBackward and sampling call (default 1). */
  engineThreads?: number;
}

export type { TrainEngine } from './parallel-options.ts';

export interface LoadOptions extends EmbeddedBackendOptions {
  /** Rebuilds the tokenizer from tokenizer.json; default CharTokenizer.fromJSON. */
  tokenizerFromJSON?: (json: unknown) => SerializableTokenizer;
}

/** Default largest padded micro-batch (rows × positions). */
export const defaultTokenBudget = 4096;

export class EmbeddedBackend implements PolicyBackend {
  /** forwardBackward takes Datum.entropyWeights (the full next-token distribution is here). */
  readonly entropy = true;
  readonly model: TransformerModel;
  readonly tokenizer: SerializableTokenizer;
  readonly optimizer: AdamW;
  private readonly tokenBudget: number;
  /** Summed gradients since the last optimStep, by parameter name (null when empty). */
  private gradients: Map<string, tf.Tensor> | null = null;
  /** tfjs variable name → checkpoint parameter name (tf.variableGrads keys by the former). */
  private readonly parameterOfVariable = new Map<string, string>();
  readonly engine: TrainEngine;
  /** engine 'native': native/model.c's micro-batches and their summed gradient (null on tfjs). */
  private readonly native: NativeGradients | null;

  private constructor(
    model: TransformerModel,
    tokenizer: SerializableTokenizer,
    options: EmbeddedBackendOptions,
  ) {
    if (tokenizer.vocabSize !== model.config.vocabSize) {
      throw new ConfigError(
        `model vocabSize ${model.config.vocabSize} differs from the tokenizer's ${tokenizer.vocabSize}`,
      );
    }
    this.model = model;
    this.tokenizer = tokenizer;
    this.tokenBudget = options.maxTokensPerMicroBatch ?? defaultTokenBudget;
    this.engine = options.engine ?? 'tfjs';
    const problem = this.engine === 'native' ? nativeEngineProblem() : null;
    if (problem !== null) throw new ConfigError(`policy.engine 'native' cannot run here: ${problem}`);
    const shapes = new Map<string, number[]>();
    for (const [name, variable] of model.params) {
      shapes.set(name, variable.shape);
      this.parameterOfVariable.set(variable.name, name);
    }
    this.optimizer = new AdamW(shapes);
    this.native =
      this.engine === 'native'
        ? new NativeGradients(model, this.optimizer, options.engineThreads ?? 1)
        : null;
  }

  /** A freshly initialised model (GPT-2 init drawn from Rng(seed)). */
  static async create(
    config: ModelConfig,
    tokenizer: SerializableTokenizer,
    seed: number,
    options: EmbeddedBackendOptions = {},
  ): Promise<EmbeddedBackend> {
    await initRuntime(options.runtime ?? 'wasm');
    const model = TransformerModel.create(parseModelConfig(config), new Rng(seed));
    return new EmbeddedBackend(model, tokenizer, options);
  }

  /** Loads a checkpoint directory written by save(); throws CheckpointError naming the bad file. */
  static async load(dir: string, options: LoadOptions = {}): Promise<EmbeddedBackend> {
    await initRuntime(options.runtime ?? 'wasm');
    const contents = readCheckpoint(dir);
    let tokenizer: SerializableTokenizer;
    try {
      tokenizer = (options.tokenizerFromJSON ?? CharTokenizer.fromJSON)(contents.tokenizer);
    } catch (error) {
      throw new CheckpointError(`checkpoint ${dir}/tokenizer.json: ${(error as Error).message}`);
    }
    if (tokenizer.vocabSize !== contents.config.vocabSize) {
      throw new CheckpointError(
        `checkpoint ${dir}: tokenizer.json has ${tokenizer.vocabSize} tokens, config.json says vocabSize ${contents.config.vocabSize}`,
      );
    }
    return EmbeddedBackend.fromContents(contents, tokenizer, options);
  }

  /** A backend from already-read checkpoint contents (the worker-parallel backend's replicas use this). */
  static async fromContents(
    contents: Pick<CheckpointContents, 'config' | 'weights' | 'optimizer'>,
    tokenizer: SerializableTokenizer,
    options: EmbeddedBackendOptions = {},
  ): Promise<EmbeddedBackend> {
    await initRuntime(options.runtime ?? 'wasm');
    const model = new TransformerModel(contents.config, contents.weights);
    const backend = new EmbeddedBackend(model, tokenizer, options);
    if (contents.optimizer) backend.optimizer.loadState(contents.optimizer);
    return backend;
  }

  get contextLength(): number {
    return this.model.config.contextLength;
  }

  async sample(prompts: number[][], options: SampleOptions): Promise<SampledSequence[][]> {
    return sampleWithKvCache(this.model, this.tokenizer, prompts, options, undefined, this.decoder());
  }

  /** The sampler's forward engine: native/model-decode.c on engine 'native', else tfjs. */
  private decoder(): DecoderFactory | undefined {
    const native = this.native;
    return native ? nativeDecoder(() => native.weights(), native.threads) : undefined;
  }

  /**
   * PromptSeedSampling (prompt-seeds.ts; not part of PolicyBackend): prompt p draws from its own
   * Rng(promptSeeds[p]) instead of all rows sharing Rng(options.seed), as a parallel worker does.
   */
  async sampleWithPromptSeeds(
    prompts: number[][],
    options: SampleOptions,
    promptSeeds: readonly number[],
  ): Promise<SampledSequence[][]> {
    const promptRngs = promptSeeds.map((seed) => new Rng(seed));
    return sampleWithKvCache(this.model, this.tokenizer, prompts, options, promptRngs, this.decoder());
  }

  async forward(sequences: number[][]): Promise<number[][]> {
    for (const [index, tokens] of sequences.entries())
      this.checkSequence(tokens, `forward: sequence ${index}`);
    const result: number[][] = new Array(sequences.length);
    const lengths = sequences.map((tokens) => tokens.length - 1);
    for (const group of microBatches(lengths, this.tokenBudget)) {
      const batch = padBatch(
        group.map((i) => sequences[i]),
        null,
        this.tokenizer.pad,
      );
      const values = tf.tidy(() => {
        const inputs = tf.tensor2d(batch.inputs, [batch.rows, batch.time], 'int32');
        const targets = tf.tensor2d(batch.targets, [batch.rows, batch.time], 'int32');
        return tokenLogprobs(this.model, inputs, targets);
      });
      const rows = unpadRows(values.dataSync() as Float32Array, batch.time, batch.lengths);
      values.dispose();
      group.forEach((sequenceIndex, row) => {
        result[sequenceIndex] = rows[row];
      });
    }
    return result;
  }

  async forwardBackward(data: Datum[], loss: LossKind): Promise<ForwardBackwardResult> {
    if (loss !== 'linear' && loss !== 'cross_entropy') {
      throw new UserError(`forwardBackward: unknown loss '${loss}'; known: cross_entropy, linear`);
    }
    for (const [index, datum] of data.entries()) this.checkDatum(datum, `forwardBackward: datum ${index}`);
    const sign = loss === 'linear' ? 1 : -1;
    const variables = [...this.model.params.values()];
    const logprobs: number[][] = new Array(data.length);
    const withEntropy = data.some((datum) => datum.entropyWeights !== undefined);
    const entropies: number[][] | undefined = withEntropy ? new Array(data.length) : undefined;
    let totalLoss = 0;
    let weightedTokens = 0;
    const lengths = data.map((datum) => datum.tokens.length - 1);
    for (const group of microBatches(lengths, this.tokenBudget)) {
      const batch = padBatch(
        group.map((i) => data[i].tokens),
        group.map((i) => data[i].weights),
        this.tokenizer.pad,
      );
      for (const weight of batch.weights) if (weight !== 0) weightedTokens++;
      // The entropy weights packed like the weights (0 on padding and where a datum gives none).
      const entropyWeights = withEntropy
        ? padBatch(
            group.map((i) => data[i].tokens),
            group.map((i) => data[i].entropyWeights ?? new Array(lengths[i]).fill(0)),
            this.tokenizer.pad,
          ).weights
        : undefined;
      const keep = (values: Float32Array, into: number[][]) => {
        const rows = unpadRows(values, batch.time, batch.lengths);
        group.forEach((datumIndex, row) => {
          into[datumIndex] = rows[row];
        });
      };
      if (this.native) {
        const result = this.native.microBatch(batch, sign, entropyWeights);
        totalLoss += result.loss;
        keep(result.logprobs, logprobs);
        if (entropies && result.entropies) keep(result.entropies, entropies);
        continue;
      }
      let tokenValues: tf.Tensor | undefined;
      let entropyValues: tf.Tensor | undefined;
      const { value, grads } = tf.variableGrads(() => {
        const inputs = tf.tensor2d(batch.inputs, [batch.rows, batch.time], 'int32');
        const targets = tf.tensor2d(batch.targets, [batch.rows, batch.time], 'int32');
        const signedWeights = tf.tensor2d(batch.weights, [batch.rows, batch.time], 'float32');
        if (!entropyWeights) {
          const tokenLogp = tokenLogprobs(this.model, inputs, targets); // [B, T]
          tokenValues = tf.keep(tokenLogp);
          return tf.mul(tf.sum(tf.mul(tokenLogp, signedWeights)), sign) as tf.Scalar;
        }
        const scored = tokenLogprobsAndEntropy(this.model, inputs, targets);
        tokenValues = tf.keep(scored.logprobs);
        entropyValues = tf.keep(scored.entropy);
        const entropyTerm = tf.sum(
          tf.mul(scored.entropy, tf.tensor2d(entropyWeights, [batch.rows, batch.time], 'float32')),
        );
        return tf.add(tf.mul(tf.sum(tf.mul(scored.logprobs, signedWeights)), sign), entropyTerm) as tf.Scalar;
      }, variables);
      totalLoss += value.dataSync()[0];
      value.dispose();
      this.accumulate(grads);
      keep(tokenValues!.dataSync() as Float32Array, logprobs);
      tokenValues!.dispose();
      if (entropies && entropyValues) keep(entropyValues.dataSync() as Float32Array, entropies);
      entropyValues?.dispose();
    }
    return { loss: totalLoss, logprobs, tokens: weightedTokens, ...(entropies && { entropies }) };
  }

  async optimStep(options: OptimOptions): Promise<OptimStepResult> {
    const gradients = this.gradients ?? new Map<string, tf.Tensor>();
    this.gradients = null;
    this.native?.takeInto(gradients);
    try {
      return this.optimizer.apply(this.model.params, gradients, options);
    } finally {
      for (const gradient of gradients.values()) gradient.dispose();
    }
  }

  /** Copies of the gradients accumulated since the last optimStep (empty map when none); for tests. */
  gradientValues(): Map<string, Float32Array> {
    const values = new Map<string, Float32Array>();
    for (const [name, gradient] of this.gradients ?? [])
      values.set(name, gradient.dataSync() as Float32Array);
    this.native?.addValuesInto(values);
    return values;
  }

  /** Drops accumulated gradients without applying them. */
  zeroGradients(): void {
    if (this.gradients) for (const gradient of this.gradients.values()) gradient.dispose();
    this.gradients = null;
    this.native?.clear();
  }

  async save(dir: string): Promise<void> {
    if (typeof this.tokenizer.toJSON !== 'function') {
      throw new CheckpointError(`cannot save checkpoint ${dir}: the tokenizer has no toJSON()`);
    }
    writeCheckpoint(dir, {
      config: this.model.config,
      weights: this.model.parameterValues(),
      tokenizer: this.tokenizer.toJSON(),
      tokenizerConfig: this.tokenizer.tokenizerConfig?.(),
      optimizer: this.optimizer.state(),
    });
  }

  /**
   * A frozen copy of the current weights for sampling (no Adam state, no gradients): what save() then
   * load() gives, without the disk and without copying (TransformerModel.shareWeights: later optimiser
   * steps replace this backend's buffers and leave the copy's alone). `curricula serve --tinker` makes one
   * per save_weights_for_sampler.
   */
  snapshotForSampling(): EmbeddedBackend {
    const model = this.model.shareWeights();
    return new EmbeddedBackend(model, this.tokenizer, {
      maxTokensPerMicroBatch: this.tokenBudget,
      engine: this.engine,
      engineThreads: this.native?.threads,
    });
  }

  /** Frees every tensor the backend holds; the backend is unusable afterwards. */
  dispose(): void {
    this.zeroGradients();
    this.optimizer.dispose();
    this.model.dispose();
  }

  private accumulate(grads: tf.NamedTensorMap): void {
    const previous = this.gradients;
    const next = new Map<string, tf.Tensor>();
    for (const [variableName, gradient] of Object.entries(grads)) {
      const name = this.parameterOfVariable.get(variableName);
      if (name === undefined) throw new Error(`gradient for unknown variable '${variableName}'`);
      const old = previous?.get(name);
      if (old) {
        next.set(name, tf.add(old, gradient));
        old.dispose();
        gradient.dispose();
      } else {
        next.set(name, gradient);
      }
    }
    this.gradients = next;
  }

  private checkSequence(tokens: readonly number[], where: string): void {
    checkSequence(tokens, this.model.config, where);
  }

  private checkDatum(datum: Datum, where: string): void {
    checkDatum(datum, this.model.config, where);
  }
}
