// Native kernels of the KV-cached sampler (native/attention.c), registered as wasm kernels of our own
// names and run in place on the wasm heap:
//
// - CurriculaDecodeAttention: one decoding step's attention for one layer. Writes every row's new key
//   and value (read from the qkv output on the heap) into the cache column, then attends over the
//   unmasked columns only. Replaces a dataSync copy of qkv, the column write in JavaScript, and six tfjs
//   ops that ran over every column of the cache (at batch 64 on `base` they were most of a step).
// - CurriculaSamplerLinear: x·W + b on OpenBLAS with the LayerNorm before it (gain and bias folded), the
//   GELU after it, or the residual add fused: one kernel where tfjs ran a fused matmul, its three
//   reshapes, and seven ops per LayerNorm, six per GELU or one add (at batch 64 the per-op overhead was
//   a good part of a step).
//
// Each entry point returns undefined when the native path is off (setNativeKernels(false),
// CURRICULA_NATIVE=0, no addon, a backend other than wasm) or the input is not float32; the caller then
// runs its tfjs ops, which stay the reference. The attention takes both layouts of the value cache
// (sampler-forward.ts), so that the two paths can take turns on one cache.
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
    valuesTransposed: boolean,
  ): void;
  samplerLinear(
    heap: Uint8Array,
    xOffset: number,
    rows: number,
    inner: number,
    standardise: boolean,
    weightOffset: number,
    cols: number,
    biasOffset: number,
    residualOffset: number,
    gelu: boolean,
    outOffset: number,
  ): void;
}

type HeapBackend = WasmBackend & { wasm: { HEAPU8: Uint8Array } };

const attentionKernel = 'CurriculaDecodeAttention';
const linearKernel = 'CurriculaSamplerLinear';

let isEnabled: () => boolean = () => false;
let samplerKernelsOn = true;
const counts = { attention: 0, linear: 0 };

/** How many times each sampler kernel ran natively (tests prove the native path with these). */
export function nativeSamplerCounts(): { attention: number; linear: number } {
  return { ...counts };
}

/**
 * Turns these kernels alone off (the native matmuls stay on): for A/B benchmarks of the sampler's own
 * kernels. setNativeKernels(false) turns everything off.
 */
export function setNativeSamplerKernels(on: boolean): void {
  samplerKernelsOn = on;
}

/** Whether the sampler's native kernels run now: installed, switched on, and the wasm backend active. */
export function samplerNativeActive(): boolean {
  return samplerKernelsOn && isEnabled() && tf.getBackend() === 'wasm';
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
      Boolean(attrs.valuesTransposed),
    );
    counts.attention++;
    return out;
  });
  register(linearKernel, ({ inputs, backend, attrs }) => {
    const { x, weight, bias, residual } = inputs;
    const [rows, inner] = x.shape;
    const cols = weight.shape[1];
    const wasm = backend as unknown as HeapBackend;
    const out = wasm.makeOutput([rows, cols], 'float32');
    addon.samplerLinear(
      wasm.wasm.HEAPU8,
      offsetOf(wasm, x),
      rows,
      inner,
      Boolean(attrs.standardise),
      offsetOf(wasm, weight),
      cols,
      offsetOf(wasm, bias),
      residual ? offsetOf(wasm, residual) : -1,
      Boolean(attrs.gelu),
      offsetOf(wasm, out),
    );
    counts.linear++;
    return out;
  });
}

/**
 * Writes k and v of qkv [R, 3d] into column `column` of the cache (keys [R, H, C, hd], values
 * [R, H, C, hd] or, when `valuesTransposed`, [R, H, hd, C]; in place) and returns the attention output
 * [R, d] over columns [pads[r], column] of each row; undefined when the native path is off.
 */
export function nativeDecodeAttention(
  qkv: tf.Tensor2D,
  keys: tf.Tensor4D,
  values: tf.Tensor4D,
  valuesTransposed: boolean,
  pads: Int32Array,
  column: number,
): tf.Tensor2D | undefined {
  if (!samplerNativeActive() || [qkv, keys, values].some((tensor) => tensor.dtype !== 'float32'))
    return undefined;
  const attrs = { column, pads, valuesTransposed };
  return tf.engine().runKernel(attentionKernel, { qkv, keys, values }, attrs as never) as tf.Tensor2D;
}

/**
 * act(s(x) · weight + bias) + residual for x [N, k], weight [k, n], bias [n], residual [N, n]: s
 * standardises the rows when `standardise`, act is GELU (tanh approximation) when `gelu` (not with a
 * residual). Undefined when the native path is off or the operands are not float32 matrices.
 */
export function nativeLinear(
  x: tf.Tensor2D,
  weight: tf.Tensor2D,
  bias: tf.Tensor1D,
  options: { standardise?: boolean; gelu?: boolean; residual?: tf.Tensor2D },
): tf.Tensor2D | undefined {
  if (!samplerNativeActive()) return undefined;
  const { residual, standardise = false, gelu = false } = options;
  const operands = residual ? [x, weight, bias, residual] : [x, weight, bias];
  if (operands.some((tensor) => tensor.dtype !== 'float32')) return undefined;
  if (x.rank !== 2 || weight.rank !== 2 || bias.rank !== 1 || x.shape[1] !== weight.shape[0])
    return undefined;
  if (bias.shape[0] !== weight.shape[1] || (gelu && residual)) return undefined;
  if (
    residual &&
    (residual.rank !== 2 || residual.shape[0] !== x.shape[0] || residual.shape[1] !== weight.shape[1])
  )
    return undefined;
  const inputs: tf.NamedTensorMap = residual ? { x, weight, bias, residual } : { x, weight, bias };
  return tf.engine().runKernel(linearKernel, inputs, { standardise, gelu }) as tf.Tensor2D;
}
