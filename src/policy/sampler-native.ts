// Native kernels of the KV-cached sampler (native/attention.c), registered as wasm kernels of our own
// names and run in place on the wasm heap:
//
// - CurriculaDecodeAttention: one decoding step's attention for one layer. Writes every row's new key
//   and value (read from the qkv output on the heap) into the cache column, then attends over the
//   unmasked columns only. Replaces a dataSync copy of qkv, the column write in JavaScript, and six tfjs
//   ops that ran over every column of the cache (at batch 64 on `base` they were most of a step).
// - CurriculaStandardise: LayerNorm without gain and bias over the rows of [N, d] (seven tfjs ops).
// - CurriculaGelu: GELU, tanh approximation (six tfjs ops).
//
// Each entry point returns undefined when the native path is off (setNativeKernels(false),
// CURRICULA_NATIVE=0, no addon, a backend other than wasm) or the input is not float32; the caller then
// runs its tfjs ops, which stay the reference. The cache layout is the tfjs path's (keys [R, H, C, hd],
// values transposed [R, H, hd, C]), so that the two paths can take turns on one cache.
import * as tf from '@tensorflow/tfjs';
import type { KernelArgs, WasmBackend } from './wasm-kernels.ts';

/** The addon's sampler exports (native/attention.c documents the arguments). */
export interface SamplerAddon {
  decodeAttention(
    heap: Uint8Array,
    qkvOffset: number,
    rows: number,
    heads: number,
    headSize: number,
    keysOffset: number,
    valuesOffset: number,
    capacity: number,
    column: number,
    pads: Int32Array,
    outOffset: number,
  ): void;
  standardiseRows(heap: Uint8Array, xOffset: number, rows: number, width: number, outOffset: number): void;
  geluTanh(heap: Uint8Array, xOffset: number, count: number, outOffset: number): void;
}

type HeapBackend = WasmBackend & { wasm: { HEAPU8: Uint8Array } };

const attentionKernel = 'CurriculaDecodeAttention';
const standardiseKernel = 'CurriculaStandardise';
const geluKernel = 'CurriculaGelu';

let isEnabled: () => boolean = () => false;
const counts = { attention: 0, standardise: 0, gelu: 0 };

/** How many times each sampler kernel ran natively (tests prove the native path with these). */
export function nativeSamplerCounts(): { attention: number; standardise: number; gelu: number } {
  return { ...counts };
}

/** Whether the sampler's native kernels run now: installed, switched on, and the wasm backend active. */
export function samplerNativeActive(): boolean {
  return isEnabled() && tf.getBackend() === 'wasm';
}

function offsetOf(backend: HeapBackend, tensor: tf.TensorInfo): number {
  return backend.dataIdMap.get(tensor.dataId).memoryOffset;
}

/**
 * Registers the three kernels on the wasm backend; `enabled` says whether the native kernels are on
 * (native-kernels.ts's setNativeKernels switch). Called by installNativeKernels once the addon loads.
 */
export function installSamplerKernels(addon: SamplerAddon, enabled: () => boolean): void {
  isEnabled = enabled;
  const register = (kernelName: string, kernelFunc: (args: KernelArgs) => tf.TensorInfo) => {
    if (tf.getKernel(kernelName, 'wasm')) tf.unregisterKernel(kernelName, 'wasm');
    tf.registerKernel({ kernelName, backendName: 'wasm', kernelFunc: kernelFunc as never });
  };
  register(attentionKernel, ({ inputs, backend, attrs }) => {
    const { qkv, keys, values } = inputs;
    const [rows, heads, capacity, headSize] = keys.shape;
    const wasm = backend as unknown as HeapBackend;
    const out = wasm.makeOutput([rows, heads * headSize], 'float32');
    // The heap only after makeOutput: an allocation may grow the memory and replace its buffer.
    addon.decodeAttention(
      wasm.wasm.HEAPU8,
      offsetOf(wasm, qkv),
      rows,
      heads,
      headSize,
      offsetOf(wasm, keys),
      offsetOf(wasm, values),
      capacity,
      attrs.column as number,
      attrs.pads as unknown as Int32Array,
      offsetOf(wasm, out),
    );
    counts.attention++;
    return out;
  });
  register(standardiseKernel, ({ inputs, backend }) => {
    const { x } = inputs;
    const wasm = backend as unknown as HeapBackend;
    const out = wasm.makeOutput([...x.shape], 'float32');
    const [rows, width] = x.shape;
    addon.standardiseRows(wasm.wasm.HEAPU8, offsetOf(wasm, x), rows, width, offsetOf(wasm, out));
    counts.standardise++;
    return out;
  });
  register(geluKernel, ({ inputs, backend }) => {
    const { x } = inputs;
    const wasm = backend as unknown as HeapBackend;
    const out = wasm.makeOutput([...x.shape], 'float32');
    const size = x.shape.reduce((product, n) => product * n, 1);
    addon.geluTanh(wasm.wasm.HEAPU8, offsetOf(wasm, x), size, offsetOf(wasm, out));
    counts.gelu++;
    return out;
  });
}

/**
 * Writes k and v of qkv [R, 3d] into column `column` of the cache (keys [R, H, C, hd], values
 * [R, H, hd, C], in place) and returns the attention output [R, d] over columns [pads[r], column] of
 * each row; undefined when the native path is off.
 */
export function nativeDecodeAttention(
  qkv: tf.Tensor2D,
  keys: tf.Tensor4D,
  values: tf.Tensor4D,
  pads: Int32Array,
  column: number,
): tf.Tensor2D | undefined {
  if (!samplerNativeActive() || qkv.dtype !== 'float32' || keys.dtype !== 'float32') return undefined;
  return tf
    .engine()
    .runKernel(attentionKernel, { qkv, keys, values }, { column, pads } as never) as tf.Tensor2D;
}

/** (x - mean) / sqrt(variance + 1e-5) over the rows of x [N, d]; undefined when the native path is off. */
export function nativeStandardise(x: tf.Tensor2D): tf.Tensor2D | undefined {
  if (!samplerNativeActive() || x.dtype !== 'float32' || x.rank !== 2) return undefined;
  return tf.engine().runKernel(standardiseKernel, { x }) as tf.Tensor2D;
}

/** GELU (tanh approximation) of every element; undefined when the native path is off. */
export function nativeGelu(x: tf.Tensor2D): tf.Tensor2D | undefined {
  if (!samplerNativeActive() || x.dtype !== 'float32') return undefined;
  return tf.engine().runKernel(geluKernel, { x }) as tf.Tensor2D;
}
