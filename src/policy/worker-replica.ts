// One replica of the worker-parallel backend (parallel-backend.ts), run in its own worker thread with its
// own tfjs wasm backend. It holds an EmbeddedBackend built from `workerData` (fresh from a seed, or from
// checkpoint contents the main thread has already read and validated) and answers the main thread's calls
// (worker-link.ts) in arrival order. The replicas meet only in the gradient exchange (gradient-exchange.ts,
// shared memory): each adds its gradients to the others' there, so every replica applies the same AdamW
// update, from the same sum, to the same weights.
import { createHash } from 'node:crypto';
import { parentPort, workerData } from 'node:worker_threads';
import type { Datum, LossKind, OptimOptions, SampleOptions } from '../core/policy.ts';
import { EmbeddedBackend, type TrainEngine } from './embedded-backend.ts';
import { ExchangeMember, type GradientExchange } from './gradient-exchange.ts';
import type { ModelConfig } from './model.ts';
import { nativeKernelWarning, relayNativeWarning } from './native-kernels.ts';
import type { AdamState } from './optimizer.ts';
import type { RuntimeBackend } from './runtime.ts';
import { tf } from './runtime.ts';
import {
  importTokenizerFactory,
  type ReplicaRequest,
  type ReplicaResponse,
  type TokenizerFactory,
} from './worker-link.ts';

export interface ReplicaInit {
  index: number;
  count: number;
  runtime: RuntimeBackend;
  maxTokensPerMicroBatch?: number;
  /** EmbeddedBackendOptions.engine of every replica. */
  engine?: TrainEngine;
  /** EmbeddedBackendOptions.engineThreads of every replica. */
  engineThreads?: number;
  /** Module URL and export name of a `(json) => tokenizer` function; the tokenizer's JSON form. */
  tokenizer: TokenizerFactory & { json: unknown };
  model:
    | { kind: 'create'; config: ModelConfig; seed: number }
    | {
        kind: 'weights';
        config: ModelConfig;
        weights: Map<string, Float32Array>;
        optimizer: AdamState | null;
      };
  /** Test support: make this replica fail inside `method`, by throwing or by exiting the thread. */
  fault?: { method: string; kind: 'throw' | 'exit' | 'oom' } | null;
}

/** Gradients by parameter name, as parallel arrays so the buffers can be transferred. */
export interface GradientList {
  names: string[];
  values: Float32Array[];
}

async function build(init: ReplicaInit): Promise<EmbeddedBackend> {
  const tokenizer = (await importTokenizerFactory(init.tokenizer))(init.tokenizer.json);
  const options = {
    runtime: init.runtime,
    maxTokensPerMicroBatch: init.maxTokensPerMicroBatch,
    engine: init.engine,
    engineThreads: init.engineThreads,
  };
  if (init.model.kind === 'create') {
    return EmbeddedBackend.create(init.model.config, tokenizer, init.model.seed, options);
  }
  return EmbeddedBackend.fromContents(
    { config: init.model.config, weights: init.model.weights, optimizer: init.model.optimizer },
    tokenizer,
    options,
  );
}

/** SHA-256 over the optimizer step and every parameter's float32 bytes, in canonical order. */
function weightHash(backend: EmbeddedBackend): string {
  const hash = createHash('sha256');
  hash.update(`step ${backend.optimizer.step}\n`);
  for (const [name, values] of backend.model.parameterValues()) {
    hash.update(name);
    hash.update(new Uint8Array(values.buffer, values.byteOffset, values.byteLength));
  }
  return hash.digest('hex');
}

/** One AdamW step of `backend` with `summed` (by parameter name; a missing name has no gradient). */
function applySum(
  backend: EmbeddedBackend,
  summed: ReadonlyMap<string, Float32Array>,
  options: OptimOptions,
) {
  const tensors = new Map<string, tf.Tensor>();
  try {
    for (const [name, values] of summed) {
      const variable = backend.model.params.get(name);
      if (!variable) throw new Error(`gradient for unknown parameter '${name}'`);
      tensors.set(name, tf.tensor(values, variable.shape, 'float32'));
    }
    return backend.optimizer.apply(backend.model.params, tensors, options);
  } finally {
    for (const tensor of tensors.values()) tensor.dispose();
  }
}

function methods(backend: EmbeddedBackend, init: ReplicaInit) {
  let member: ExchangeMember | null = null;
  return {
    /** `promptSeeds[p]` seeds prompt p's own Rng (see parallel-backend.ts: sample). */
    sample: (prompts: number[][], options: SampleOptions, promptSeeds: number[]) =>
      backend.sampleWithPromptSeeds(prompts, options, promptSeeds),
    forward: (sequences: number[][]) => backend.forward(sequences),
    forwardBackward: (data: Datum[], loss: LossKind) => backend.forwardBackward(data, loss),
    /** The gradients accumulated since the last step (kept); for tests. */
    gradients: (): GradientList => {
      const values = backend.gradientValues();
      return { names: [...values.keys()], values: [...values.values()] };
    },
    /** Names and element counts of the parameters, in canonical order (the exchange's layout). */
    parameterLayout: () => {
      const params = [...backend.model.params];
      return { names: params.map(([name]) => name), sizes: params.map(([, variable]) => variable.size) };
    },
    /** Joins the shared-memory gradient exchange (gradient-exchange.ts) as member `init.index`. */
    attachExchange: (exchange: GradientExchange) => {
      member = new ExchangeMember(exchange, init.index);
    },
    /**
     * One AdamW step with the gradients of all replicas: this replica's accumulated gradients go into the
     * exchange (and are cleared here), the exchange sums them with the others', the sum is applied.
     */
    allReduceAndStep: (options: OptimOptions) => {
      if (!member) throw new Error('allReduceAndStep before attachExchange');
      const own = backend.gradientValues();
      backend.zeroGradients();
      return applySum(backend, member.allReduce(own), options);
    },
    weightHash: () => weightHash(backend),
    save: (dir: string) => backend.save(dir),
    parameterValues: () => backend.model.parameterValues(),
    /** The native-kernel fallback warning this replica kept for the main thread, or null. */
    nativeWarning: () => nativeKernelWarning() ?? null,
  };
}

async function main(): Promise<void> {
  const port = parentPort;
  if (!port) throw new Error('worker-replica.ts must run in a worker thread');
  const init = workerData as ReplicaInit;
  // N replicas would print N copies of the native-kernel fallback warning: the main thread prints one.
  relayNativeWarning();
  const backend = await build(init);
  const table = methods(backend, init) as Record<string, (...args: unknown[]) => unknown>;
  // Calls run strictly one after another, in arrival order.
  let queue: Promise<void> = Promise.resolve();
  port.on('message', (request: ReplicaRequest) => {
    if (request?.type !== 'call') return;
    queue = queue.then(async () => {
      let response: ReplicaResponse;
      const transfer: ArrayBuffer[] = [];
      try {
        if (init.fault?.method === request.method) {
          if (init.fault.kind === 'exit') process.exit(3);
          if (init.fault.kind === 'oom') {
            // Grows the JS heap until the worker's resource limit ends the thread.
            const hoard: number[][] = [];
            for (;;) hoard.push(new Array(1 << 20).fill(hoard.length));
          }
          throw new Error(`injected fault in ${request.method}`);
        }
        const run = table[request.method];
        if (!run) throw new Error(`unknown replica method '${request.method}'`);
        const value = await run(...request.args);
        if (request.method === 'gradients') {
          const list = value as GradientList;
          // Moved, not copied; an array that does not own its whole buffer is copied first.
          list.values = list.values.map((array) =>
            array.byteOffset === 0 && array.buffer.byteLength === array.byteLength ? array : array.slice(),
          );
          for (const array of list.values) transfer.push(array.buffer as ArrayBuffer);
        }
        response = { type: 'result', id: request.id, ok: true, value };
      } catch (error) {
        const { name, message } = error instanceof Error ? error : { name: 'Error', message: String(error) };
        response = { type: 'result', id: request.id, ok: false, error: { name, message } };
      }
      port.postMessage(response, transfer);
    });
  });
  port.postMessage({ type: 'ready' } satisfies ReplicaResponse);
}

await main();
