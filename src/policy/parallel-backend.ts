// The worker-parallel embedded backend (ARCHITECTURE.md, "Both cores"): N replicas of the embedded
// transformer, each in its own worker thread with its own tfjs wasm backend (tfjs-wasm is single-threaded
// under Node, so threads are the only way to use more than one core). The loop sees one PolicyBackend.
//
// - sample: prompts are split into N contiguous chunks of (nearly) equal count. Each prompt draws its
//   tokens from its own Rng, seeded with the p-th draw of Rng(options.seed), so which worker samples a
//   prompt does not decide its random stream. The results differ from N = 1 (one Rng shared by all rows)
//   and are bit-identical for a given seed and N.
// - forward / forwardBackward: the data is split into N contiguous chunks balanced by token count
//   (parallel-split.ts); each replica accumulates the gradient of its chunk. Log-probs come back in input
//   order; losses and token counts are summed in worker order.
// - optimStep: the replicas sum their gradients in shared memory (gradient-exchange.ts: a reduce-scatter
//   in worker order 0, 1, …, float32 adds like tf.add, then every replica reads the whole sum), and each
//   applies the same AdamW step to the same weights with the same state: the replicas stay identical
//   (weightHashes() checks), and the step is deterministic for a given N. Gradients match N = 1 up to
//   float32 rounding (the sum is split differently), not bit for bit. A replica that fails inside the
//   exchange aborts it and closes the backend, as a death does.
// - Each replica's micro-batch budget defaults to 4096 / N padded tokens, so the N replicas together hold
//   what one backend would. It also keeps the chunks' padding down: at the demo's RL batch (128 sequences
//   of 20-70 tokens, base model) two halves at 4096 each cost ~25% more CPU than the whole batch (one
//   group per half padded to its longest row), at 2048 about the same.
// - save writes replica 0's weights and Adam state (every replica holds the same).
//
// N = 1 never comes here: createEmbeddedPolicy / loadEmbeddedPolicy (parallel-factory.ts) return the plain
// EmbeddedBackend, so the default path is exactly the in-process one. A worker that throws fails the call with
// PolicyWorkerError naming it; one that dies fails the call and closes the rest (the replicas could no
// longer be kept identical), and the backend refuses further calls. close() terminates every thread.
import { availableParallelism } from 'node:os';
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
} from '../core/policy.ts';
import { siblingModule } from '../core/sibling-module.ts';
import { readCheckpoint } from './checkpoint.ts';
import { checkDatum, checkSequence } from './datum-checks.ts';
import {
  defaultTokenBudget,
  type EmbeddedBackendOptions,
  type SerializableTokenizer,
} from './embedded-backend.ts';
import {
  abortGradientExchange,
  createGradientExchange,
  ExchangeAbortedError,
  type GradientExchange,
} from './gradient-exchange.ts';
import type { ModelConfig } from './model.ts';
import { parseModelConfig } from './model-config.ts';
import { preloadNativeAddon, printNativeWarning } from './native-kernels.ts';
import { splitByCost } from './parallel-split.ts';
import { promptSeedsOf } from './prompt-seeds.ts';
import { mergeForwardBackward, scatter, sumGradients } from './replica-calls.ts';
import { validateSampleRequest } from './sampler.ts';
import {
  importTokenizerFactory,
  PolicyWorkerError,
  type TokenizerFactory,
  WorkerLink,
} from './worker-link.ts';
import type { GradientList, ReplicaInit } from './worker-replica.ts';

export { PolicyWorkerError } from './worker-link.ts';

export interface ParallelBackendOptions extends EmbeddedBackendOptions {
  /** Replicas (worker threads), ≥ 2. */
  workers: number;
  /**
   * How a worker rebuilds the tokenizer from its JSON: a module URL and an export (`Name` or
   * `Name.method`). Default: CharTokenizer.fromJSON, which is what checkpoints hold.
   */
  tokenizerFactory?: TokenizerFactory;
  /** Where the "more workers than cores" warning goes (default: stderr). */
  onWarning?: (message: string) => void;
  /**
   * Test support: make worker `worker` throw, exit, or run out of memory (its JS heap then capped at
   * 256 MB, so that it dies quickly) inside `method`.
   */
  fault?: { worker: number; method: string; kind: 'throw' | 'exit' | 'oom' };
}

const replicaUrl = siblingModule('./worker-replica.ts', import.meta.url);
const charTokenizerFactory: TokenizerFactory = {
  module: siblingModule('./tokenizer.ts', import.meta.url).href,
  exportName: 'CharTokenizer.fromJSON',
};

export class ParallelEmbeddedBackend implements PolicyBackend {
  /** Every replica is an EmbeddedBackend: Datum.entropyWeights travel with the data. */
  readonly entropy = true;
  readonly tokenizer: SerializableTokenizer;
  readonly config: ModelConfig;
  private readonly links: WorkerLink[];
  /** The replicas' shared-memory gradient all-reduce, set up once they are ready. */
  private exchange!: GradientExchange;
  private failure: Error | null = null;
  private closed = false;

  private constructor(config: ModelConfig, tokenizer: SerializableTokenizer, links: WorkerLink[]) {
    this.config = config;
    this.tokenizer = tokenizer;
    this.links = links;
  }

  /** A fresh model: every replica draws the same GPT-2 init from Rng(seed). */
  static async create(
    config: ModelConfig,
    tokenizer: SerializableTokenizer,
    seed: number,
    options: ParallelBackendOptions,
  ): Promise<ParallelEmbeddedBackend> {
    const parsed = parseModelConfig(config);
    if (tokenizer.vocabSize !== parsed.vocabSize) {
      throw new ConfigError(
        `model vocabSize ${parsed.vocabSize} differs from the tokenizer's ${tokenizer.vocabSize}`,
      );
    }
    return ParallelEmbeddedBackend.start(
      parsed,
      tokenizer,
      { kind: 'create', config: parsed, seed },
      options,
    );
  }

  /** Loads a checkpoint directory (read and validated once, here) into every replica. */
  static async load(dir: string, options: ParallelBackendOptions): Promise<ParallelEmbeddedBackend> {
    const contents = readCheckpoint(dir);
    const factory = options.tokenizerFactory ?? charTokenizerFactory;
    let tokenizer: SerializableTokenizer;
    try {
      tokenizer = (await importTokenizerFactory(factory))(contents.tokenizer);
    } catch (error) {
      throw new CheckpointError(`checkpoint ${dir}/tokenizer.json: ${(error as Error).message}`);
    }
    if (tokenizer.vocabSize !== contents.config.vocabSize) {
      throw new CheckpointError(
        `checkpoint ${dir}: tokenizer.json has ${tokenizer.vocabSize} tokens, config.json says vocabSize ${contents.config.vocabSize}`,
      );
    }
    const model = {
      kind: 'weights' as const,
      config: contents.config,
      weights: contents.weights,
      optimizer: contents.optimizer,
    };
    return ParallelEmbeddedBackend.start(contents.config, tokenizer, model, {
      ...options,
      tokenizerFactory: factory,
    });
  }

  private static async start(
    config: ModelConfig,
    tokenizer: SerializableTokenizer,
    model: ReplicaInit['model'],
    options: ParallelBackendOptions,
  ): Promise<ParallelEmbeddedBackend> {
    const count = options.workers;
    if (!Number.isInteger(count) || count < 2) {
      throw new RangeError(
        `ParallelEmbeddedBackend needs ≥ 2 workers, got ${count} (use EmbeddedBackend for 1)`,
      );
    }
    const cores = availableParallelism();
    if (count > cores) {
      (options.onWarning ?? ((message) => console.error(`warning: ${message}`)))(
        `policy.workers is ${count} but this machine has ${cores} cores: the workers will share them (no faster, more memory)`,
      );
    }
    const factory = options.tokenizerFactory ?? charTokenizerFactory;
    const json = tokenizer.toJSON();
    let backend: ParallelEmbeddedBackend | null = null;
    const links: WorkerLink[] = [];
    if ((options.runtime ?? 'wasm') === 'wasm') preloadNativeAddon();
    for (let index = 0; index < count; index++) {
      const fault = options.fault?.worker === index ? options.fault : null;
      const init: ReplicaInit = {
        index,
        count,
        runtime: options.runtime ?? 'wasm',
        maxTokensPerMicroBatch: options.maxTokensPerMicroBatch ?? Math.ceil(defaultTokenBudget / count),
        engine: options.engine,
        engineThreads: options.engineThreads,
        tokenizer: { ...factory, json },
        model,
        fault,
      };
      links.push(
        new WorkerLink(
          replicaUrl,
          init,
          `policy worker ${index} of ${count}`,
          (error) => backend?.onWorkerDeath(error),
          fault?.kind === 'oom' ? { maxOldGenerationSizeMb: 256 } : undefined,
        ),
      );
    }
    backend = new ParallelEmbeddedBackend(config, tokenizer, links);
    try {
      await Promise.all(links.map((link) => link.ready));
      const hashes = await backend.weightHashes();
      if (new Set(hashes).size !== 1) {
        throw new PolicyWorkerError(
          `policy workers started with different weights (hashes ${hashes.join(', ')})`,
        );
      }
      const layout = await links[0].call<{ names: string[]; sizes: number[] }>('parameterLayout');
      backend.exchange = createGradientExchange(layout.names, layout.sizes, count);
      await Promise.all(links.map((link) => link.call('attachExchange', [backend!.exchange])));
      // The replicas keep their native-kernel fallback warning (all the same line): print it once.
      const warning = await links[0].call<string | null>('nativeWarning');
      if (warning) printNativeWarning(warning);
    } catch (error) {
      await backend.close();
      throw error;
    }
    return backend;
  }

  get contextLength(): number {
    return this.config.contextLength;
  }

  /** Number of replicas. */
  get workers(): number {
    return this.links.length;
  }

  async sample(prompts: number[][], options: SampleOptions): Promise<SampledSequence[][]> {
    // One seed per prompt, from one stream: prompt p's randomness does not depend on the split.
    return this.sampleWithPromptSeeds(prompts, options, promptSeedsOf(prompts.length, options.seed));
  }

  /** PromptSeedSampling (prompt-seeds.ts): prompt p draws from Rng(promptSeeds[p]). */
  async sampleWithPromptSeeds(
    prompts: number[][],
    options: SampleOptions,
    promptSeeds: readonly number[],
  ): Promise<SampledSequence[][]> {
    this.checkOpen();
    // Checked here so that a mistake names the prompt by its index in the whole list, not in a chunk.
    validateSampleRequest(prompts, options, this.config.contextLength, this.config.vocabSize);
    if (promptSeeds.length !== prompts.length) {
      throw new RangeError(`sample: ${promptSeeds.length} prompt seeds for ${prompts.length} prompts`);
    }
    if (prompts.length === 0) return [];
    const parts = await scatter(
      this.links,
      splitByCost(
        prompts.map(() => 1),
        this.links.length,
      ),
      (link, start, end) =>
        link.call<SampledSequence[][]>('sample', [
          prompts.slice(start, end),
          options,
          promptSeeds.slice(start, end),
        ]),
    );
    return parts.flat();
  }

  async forward(sequences: number[][]): Promise<number[][]> {
    this.checkOpen();
    for (const [index, tokens] of sequences.entries())
      checkSequence(tokens, this.config, `forward: sequence ${index}`);
    const chunks = splitByCost(
      sequences.map((tokens) => tokens.length - 1),
      this.links.length,
    );
    const parts = await scatter(this.links, chunks, (link, start, end) =>
      link.call<number[][]>('forward', [sequences.slice(start, end)]),
    );
    return parts.flat();
  }

  async forwardBackward(data: Datum[], loss: LossKind): Promise<ForwardBackwardResult> {
    this.checkOpen();
    if (loss !== 'linear' && loss !== 'cross_entropy') {
      throw new UserError(`forwardBackward: unknown loss '${loss}'; known: cross_entropy, linear`);
    }
    for (const [index, datum] of data.entries())
      checkDatum(datum, this.config, `forwardBackward: datum ${index}`);
    const chunks = splitByCost(
      data.map((datum) => datum.tokens.length - 1),
      this.links.length,
    );
    const parts = await scatter(this.links, chunks, (link, start, end) =>
      link.call<ForwardBackwardResult>('forwardBackward', [data.slice(start, end), loss]),
    );
    return mergeForwardBackward(parts);
  }

  async optimStep(options: OptimOptions): Promise<OptimStepResult> {
    this.checkOpen();
    const exchange = this.exchange;
    // A replica that fails at once aborts the exchange at once: the others are waiting for it there.
    const settled = await Promise.allSettled(
      this.links.map((link) =>
        link.call<OptimStepResult>('allReduceAndStep', [options]).catch((error: unknown) => {
          abortGradientExchange(exchange);
          throw error;
        }),
      ),
    );
    const failed = settled.filter((result) => result.status === 'rejected');
    if (failed.length > 0) {
      // Some replicas may already have stepped: they can no longer be kept identical, so the backend is
      // done (as after a death).
      const reason = failed.map((result) => (result as PromiseRejectedResult).reason as Error);
      const cause = reason.find((error) => !error.message.includes(ExchangeAbortedError.name)) ?? reason[0];
      const error = new PolicyWorkerError(
        `optimStep failed, the policy workers can no longer be kept identical: ${cause.message}`,
      );
      this.onWorkerDeath(error);
      throw error;
    }
    const results = settled.map((result) => (result as PromiseFulfilledResult<OptimStepResult>).value);
    const [first] = results;
    for (const [index, result] of results.entries()) {
      if (!Object.is(result.gradNorm, first.gradNorm) || result.step !== first.step) {
        throw new PolicyWorkerError(
          `policy worker ${index} of ${results.length} diverged from worker 0 (gradient norm ${result.gradNorm} vs ${first.gradNorm}, step ${result.step} vs ${first.step})`,
        );
      }
    }
    return first;
  }

  async save(dir: string): Promise<void> {
    this.checkOpen();
    await this.links[0].call('save', [dir]);
  }

  /** The gradients accumulated since the last optimStep, summed over replicas (not cleared); for tests. */
  async gradientValues(): Promise<Map<string, Float32Array>> {
    this.checkOpen();
    return sumGradients(this.links);
  }

  /** SHA-256 of each replica's weights and optimizer step; all equal while the replicas agree. */
  async weightHashes(): Promise<string[]> {
    return Promise.all(this.links.map((link) => link.call<string>('weightHash')));
  }

  /** Replica 0's weights by parameter name. */
  async parameterValues(): Promise<Map<string, Float32Array>> {
    this.checkOpen();
    return this.links[0].call<Map<string, Float32Array>>('parameterValues');
  }

  /** Terminates every worker thread; the backend is unusable afterwards. Safe to call twice. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.links.map((link) => link.close()));
  }

  /** Worker threads still running (0 after close()). */
  get liveWorkers(): number {
    return this.links.filter((link) => !link.exited).length;
  }

  /** Each replica's own accumulated gradients, in worker order (not cleared); for tests. */
  async replicaGradientValues(): Promise<Map<string, Float32Array>[]> {
    this.checkOpen();
    const lists = await Promise.all(this.links.map((link) => link.call<GradientList>('gradients')));
    return lists.map((list) => new Map(list.names.map((name, i) => [name, list.values[i]])));
  }

  /** Test support: terminate one worker thread as if it had died. */
  async killWorkerForTest(index: number): Promise<void> {
    await this.links[index].killForTest();
  }

  private onWorkerDeath(error: PolicyWorkerError): void {
    if (this.failure || this.closed) return;
    this.failure = error;
    // Replicas waiting in the gradient exchange for the dead one stop waiting.
    if (this.exchange) abortGradientExchange(this.exchange);
    for (const link of this.links) link.fail(error);
    void Promise.all(this.links.map((link) => link.close()));
  }

  private checkOpen(): void {
    if (this.failure) throw this.failure;
    if (this.closed) throw new PolicyWorkerError('the worker-parallel policy backend is closed');
  }
}
