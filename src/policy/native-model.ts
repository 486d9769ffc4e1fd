// The whole transformer's forward and backward pass in one native call (native/model.c): what
// EmbeddedBackend.forwardBackward computes with tfjs for one padded batch — per-token log-probs
// logp_t = log softmax(logits)[target_t], the loss L = sign · Σ w_t · logp_t and dL/dθ — on plain
// Float32Array copies of the weights instead of ~100 tfjs kernels per layer. EmbeddedBackend runs it with
// policy.engine 'native' (native-gradients.ts); native-model.test.ts checks it against the tfjs path.
//
// The addon is the one native-kernels.ts loads (same path, same OpenBLAS settings); an addon built before
// native/model.c existed has no modelForwardBackward, and nativeModelStatus() says to rebuild it.
import { parameterSpecs, type TransformerModel } from './model.ts';
import { type ModelConfig, parameterCount } from './model-config.ts';
import { loadedNativeAddon, nativeKernelStatus, nativeKernelsAvailable } from './native-kernels.ts';
import type { PaddedBatch } from './teacher-forcing.ts';

/** native/model.c's entry point; its comment documents the arguments. Returns Σ weights · logp. */
type ModelForwardBackward = (
  vocab: number,
  dModel: number,
  layers: number,
  heads: number,
  context: number,
  params: Float32Array,
  gradients: Float32Array,
  inputs: Int32Array,
  targets: Int32Array,
  weights: Float32Array,
  rows: number,
  time: number,
  logprobs: Float32Array,
  threads?: number,
  entropyWeights?: Float32Array | null,
  entropies?: Float32Array | null,
) => number;

export interface NativeModelStatus {
  available: boolean;
  /** What runs, or why it cannot: one line. */
  reason: string;
}

/** native/model.c's modelProfile: what the profiled calls since the last read spent, per phase. */
export interface NativeModelProfile {
  /** Profiled calls. */
  calls: number;
  /** Their wall-clock seconds. */
  wallSeconds: number;
  /** Per phase of the pass (model-profile.h): seconds summed over threads, matrix-product FLOPs, calls. */
  phases: Record<string, { seconds: number; flops: number; calls: number }>;
}

type ModelProfileEntry = (enable: boolean) => NativeModelProfile;

let entry: ModelForwardBackward | undefined;
let profileEntry: ModelProfileEntry | undefined;
let status: NativeModelStatus | undefined;

function load(): NativeModelStatus {
  if (status) return status;
  const addon = loadedNativeAddon() as
    | { modelForwardBackward?: ModelForwardBackward; modelProfile?: ModelProfileEntry }
    | undefined;
  if (!addon || !nativeKernelsAvailable()) {
    status = { available: false, reason: nativeKernelStatus().reason };
    return status;
  }
  entry = addon.modelForwardBackward;
  profileEntry = addon.modelProfile;
  status = entry
    ? { available: true, reason: 'native/model.c forward and backward on OpenBLAS' }
    : {
        available: false,
        reason: 'the addon was built before native/model.c; rebuild it with `npm run build:native`',
      };
  return status;
}

/** Whether nativeForwardBackward can run here (the addon is built, loaded and has native/model.c). */
export function nativeModelAvailable(): boolean {
  return load().available;
}

export function nativeModelStatus(): NativeModelStatus {
  return { ...load() };
}

/** Every parameter of `model` concatenated in canonical order (parameterSpecs): the addon's params. */
export function packParameters(model: TransformerModel): Float32Array {
  const packed = new Float32Array(parameterCount(model.config));
  let offset = 0;
  for (const spec of parameterSpecs(model.config)) {
    const values = model.param(spec.name).dataSync() as Float32Array;
    packed.set(values, offset);
    offset += values.length;
  }
  return packed;
}

/** Views of a flat canonical-order buffer, one per parameter name (no copies). */
export function unpackParameters(config: ModelConfig, flat: Float32Array): Map<string, Float32Array> {
  const views = new Map<string, Float32Array>();
  let offset = 0;
  for (const spec of parameterSpecs(config)) {
    const size = spec.shape.reduce((p, n) => p * n, 1);
    views.set(spec.name, flat.subarray(offset, offset + size));
    offset += size;
  }
  if (offset !== flat.length)
    throw new RangeError(`flat buffer has ${flat.length} values, the model ${offset}`);
  return views;
}

export interface NativeForwardBackwardResult {
  /** sign · Σ weights · logp over the batch. */
  loss: number;
  /** float32 [rows, time]: log p(target) at every position, padding included. */
  logprobs: Float32Array;
  /** float32 [rows, time]: each position's next-token entropy, when entropy weights were given. */
  entropies?: Float32Array;
  /** dL/dθ by parameter name: views of `flatGradients`. */
  gradients: Map<string, Float32Array>;
  /** The whole gradient in canonical order (the buffer passed in, when one was). */
  flatGradients: Float32Array;
}

export interface NativeForwardBackwardOptions {
  /** Packed weights (packParameters) to reuse instead of reading the model's variables again. */
  params?: Float32Array;
  /** A canonical-order gradient buffer to ADD dL/dθ into (accumulation); a fresh zero one by default. */
  gradients?: Float32Array;
  /**
   * Threads that share the batch's rows (1–16, default 1; at most one per row). Each thread runs its rows'
   * whole pass with its own activations and gradient, summed in a fixed order: the result depends on the
   * count (float32 rounding of the sum), never on timing.
   */
  threads?: number;
  /** float32 [rows, time]: weights e of each position's entropy H: the loss adds Σ e·H (unsigned). */
  entropyWeights?: Float32Array;
}

/**
 * One padded batch (teacher-forcing.ts padBatch) through native/model.c: loss, log-probs and gradient
 * with EmbeddedBackend.forwardBackward's conventions (sign +1 for 'linear', −1 for 'cross_entropy').
 * Throws when the addon is unavailable, on shapes the model cannot take, and on a non-finite loss or
 * gradient (naming where it first appears); the gradient buffer is then left unchanged.
 */
export function nativeForwardBackward(
  model: TransformerModel,
  batch: Pick<PaddedBatch, 'rows' | 'time' | 'inputs' | 'targets' | 'weights'>,
  sign: 1 | -1,
  options: NativeForwardBackwardOptions = {},
): NativeForwardBackwardResult {
  const loaded = load();
  if (!entry) throw new Error(`native forward/backward unavailable: ${loaded.reason}`);
  const { vocabSize, dModel, layers, heads, contextLength } = model.config;
  const params = options.params ?? packParameters(model);
  const flatGradients = options.gradients ?? new Float32Array(params.length);
  const signedWeights = sign === 1 ? batch.weights : batch.weights.map((w) => -w);
  const logprobs = new Float32Array(batch.rows * batch.time);
  // The entropy term is added as given, whatever the sign of the log-prob term (Datum.entropyWeights).
  const entropyWeights = options.entropyWeights ?? null;
  const entropies = entropyWeights ? new Float32Array(batch.rows * batch.time) : null;
  const loss = entry(
    vocabSize,
    dModel,
    layers,
    heads,
    contextLength,
    params,
    flatGradients,
    batch.inputs,
    batch.targets,
    signedWeights,
    batch.rows,
    batch.time,
    logprobs,
    options.threads ?? 1,
    entropyWeights,
    entropies,
  );
  return {
    loss,
    logprobs,
    ...(entropies && { entropies }),
    gradients: unpackParameters(model.config, flatGradients),
    flatGradients,
  };
}

/**
 * Returns what the profiled native passes of this thread's addon instance (worker threads have their
 * own) spent since the last call, then profiles the passes that follow when `enable`, or stops. Null where
 * the addon is unavailable or predates the profile.
 */
export function nativeModelProfile(enable: boolean): NativeModelProfile | null {
  load();
  return profileEntry ? profileEntry(enable) : null;
}

/** The raw entry point, for tests of argument checking; undefined when unavailable. */
export function nativeModelEntry(): ModelForwardBackward | undefined {
  load();
  return entry;
}
