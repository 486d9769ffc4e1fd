// Fused native kernels (native/fused.c) for the parts of a training step that tfjs composes from many
// elementwise wasm kernels: LayerNorm and GELU forward and backward, the masked attention softmax and its
// backward, and the Adam/AdamW update with the gradient norm. Each runs as one C loop over the operands
// in place on the wasm heap, writing outputs that we allocated there with backend.makeOutput (never an
// input: tensors are immutable and the wasm Identity kernel shares data between tensors).
//
// The tensor kernels are registered for the wasm backend under their own names (CurriculaLayerNorm, …)
// and reached through the fused…() functions below, which layers.ts calls inside its customGrad
// functions; they return undefined when the native path is off (setNativeKernels(false),
// CURRICULA_NATIVE=0, setNativeFused(false), another backend, no addon) or the inputs are not handled
// (dtype, shapes), and layers.ts then runs its tfjs composition, which stays the reference.
import * as tf from '@tensorflow/tfjs';
import type { KernelArgs, WasmBackend } from './wasm-kernels.ts';

/** The addon's fused exports (native/fused.c documents the arguments; offsets are heap bytes). */
export interface FusedAddon {
  layerNorm(
    heap: Uint8Array,
    xOffset: number,
    weightOffset: number,
    biasOffset: number,
    rows: number,
    width: number,
    epsilon: number,
    outOffset: number,
    xHatOffset: number,
    rOffset: number,
  ): void;
  layerNormGrad(
    heap: Uint8Array,
    dyOffset: number,
    xHatOffset: number,
    rOffset: number,
    weightOffset: number,
    rows: number,
    width: number,
    dxOffset: number,
    dWeightOffset: number,
    dBiasOffset: number,
  ): void;
  gelu(heap: Uint8Array, xOffset: number, count: number, outOffset: number): void;
  geluGrad(heap: Uint8Array, dyOffset: number, xOffset: number, count: number, dxOffset: number): void;
  maskedSoftmax(
    heap: Uint8Array,
    xOffset: number,
    maskOffset: number,
    outer: number,
    rows: number,
    width: number,
    outOffset: number,
  ): void;
  softmaxGrad(
    heap: Uint8Array,
    dyOffset: number,
    yOffset: number,
    rows: number,
    width: number,
    dxOffset: number,
  ): void;
  sumSquares(heap: Uint8Array, offset: number, count: number, start: number): number;
  adam(
    heap: Uint8Array,
    paramOffset: number,
    gradOffset: number,
    count: number,
    outOffset: number,
    m: Float32Array,
    v: Float32Array,
    beta1: number,
    beta2: number,
    clipScale: number,
    decay: number,
    stepSize: number,
    secondCorrection: number,
    eps: number,
  ): void;
}

type HeapBackend = WasmBackend & { wasm: { HEAPU8: Uint8Array } };

let addon: FusedAddon | undefined;
let nativeEnabled: () => boolean = () => false;
let fusedEnabled = true;
const counts = {
  layerNorm: 0,
  layerNormGrad: 0,
  gelu: 0,
  geluGrad: 0,
  maskedSoftmax: 0,
  softmaxGrad: 0,
  adam: 0,
};

/** How often each fused kernel ran natively (tests prove the native path with these). */
export function nativeFusedCounts(): Readonly<typeof counts> {
  return { ...counts };
}

/** Turns only the fused kernels on or off (setNativeKernels turns off these and the matmuls); for A/B. */
export function setNativeFused(on: boolean): void {
  fusedEnabled = on;
}

/** Whether the fused kernels run now. */
export function nativeFusedActive(): boolean {
  return addon !== undefined && fusedEnabled && nativeEnabled() && tf.getBackend() === 'wasm';
}

/**
 * Registers the fused kernels for the wasm backend (called by installNativeKernels with the loaded addon
 * and its on/off switch).
 */
export function installFusedKernels(native: FusedAddon, enabled: () => boolean): void {
  addon = native;
  nativeEnabled = enabled;
  const kernels: Record<string, (args: KernelArgs, heap: HeapParts) => tf.TensorInfo[]> = {
    CurriculaLayerNorm: layerNormKernel,
    CurriculaLayerNormGrad: layerNormGradKernel,
    CurriculaGelu: geluKernel,
    CurriculaGeluGrad: geluGradKernel,
    CurriculaMaskedSoftmax: maskedSoftmaxKernel,
    CurriculaSoftmaxGrad: softmaxGradKernel,
    CurriculaAdam: adamKernel,
  };
  for (const [kernelName, kernel] of Object.entries(kernels)) {
    if (tf.getKernel(kernelName, 'wasm')) tf.unregisterKernel(kernelName, 'wasm');
    tf.registerKernel({
      kernelName,
      backendName: 'wasm',
      kernelFunc: ((args: KernelArgs) => {
        const outputs = kernel(args, heapParts(args.backend));
        return outputs.length === 1 ? outputs[0] : outputs;
      }) as unknown as tf.KernelFunc,
    });
  }
}

/** Output allocation and heap offsets of the wasm backend; `heap()` only after the last makeOutput. */
interface HeapParts {
  output(shape: number[]): tf.TensorInfo;
  offset(tensor: tf.TensorInfo): number;
  heap(): Uint8Array;
  native: FusedAddon;
}

function heapParts(backend: tf.KernelBackend): HeapParts {
  const wasmBackend = backend as unknown as HeapBackend;
  const native = addon;
  if (!native) throw new Error('fused kernels: the native addon is not loaded');
  return {
    output: (shape) => wasmBackend.makeOutput(shape, 'float32'),
    offset: (tensor) => wasmBackend.dataIdMap.get(tensor.dataId).memoryOffset,
    heap: () => wasmBackend.wasm.HEAPU8,
    native,
  };
}

function sizeOf(shape: readonly number[]): number {
  return shape.reduce((product, n) => product * n, 1);
}

function lastAxis(shape: readonly number[]): number {
  return shape[shape.length - 1];
}

function layerNormKernel({ inputs, attrs }: KernelArgs, h: HeapParts): tf.TensorInfo[] {
  const { x, weight, bias } = inputs;
  const width = lastAxis(x.shape);
  const rows = sizeOf(x.shape) / width;
  const out = h.output(x.shape);
  const xHat = h.output(x.shape);
  const r = h.output([...x.shape.slice(0, -1), 1]);
  h.native.layerNorm(
    h.heap(),
    h.offset(x),
    h.offset(weight),
    h.offset(bias),
    rows,
    width,
    attrs.epsilon as number,
    h.offset(out),
    h.offset(xHat),
    h.offset(r),
  );
  counts.layerNorm++;
  return [out, xHat, r];
}

function layerNormGradKernel({ inputs }: KernelArgs, h: HeapParts): tf.TensorInfo[] {
  const { dy, xHat, r, weight } = inputs;
  const width = lastAxis(xHat.shape);
  const dx = h.output(xHat.shape);
  const dWeight = h.output([width]);
  const dBias = h.output([width]);
  h.native.layerNormGrad(
    h.heap(),
    h.offset(dy),
    h.offset(xHat),
    h.offset(r),
    h.offset(weight),
    sizeOf(xHat.shape) / width,
    width,
    h.offset(dx),
    h.offset(dWeight),
    h.offset(dBias),
  );
  counts.layerNormGrad++;
  return [dx, dWeight, dBias];
}

function geluKernel({ inputs }: KernelArgs, h: HeapParts): tf.TensorInfo[] {
  const { x } = inputs;
  const out = h.output(x.shape);
  h.native.gelu(h.heap(), h.offset(x), sizeOf(x.shape), h.offset(out));
  counts.gelu++;
  return [out];
}

function geluGradKernel({ inputs }: KernelArgs, h: HeapParts): tf.TensorInfo[] {
  const { dy, x } = inputs;
  const dx = h.output(x.shape);
  h.native.geluGrad(h.heap(), h.offset(dy), h.offset(x), sizeOf(x.shape), h.offset(dx));
  counts.geluGrad++;
  return [dx];
}

function maskedSoftmaxKernel({ inputs }: KernelArgs, h: HeapParts): tf.TensorInfo[] {
  const { x, mask } = inputs;
  const [rows, width] = mask.shape;
  const out = h.output(x.shape);
  h.native.maskedSoftmax(
    h.heap(),
    h.offset(x),
    h.offset(mask),
    sizeOf(x.shape) / (rows * width),
    rows,
    width,
    h.offset(out),
  );
  counts.maskedSoftmax++;
  return [out];
}

function softmaxGradKernel({ inputs }: KernelArgs, h: HeapParts): tf.TensorInfo[] {
  const { dy, y } = inputs;
  const width = lastAxis(y.shape);
  const dx = h.output(y.shape);
  h.native.softmaxGrad(h.heap(), h.offset(dy), h.offset(y), sizeOf(y.shape) / width, width, h.offset(dx));
  counts.softmaxGrad++;
  return [dx];
}

/** The scalars of one Adam step (optimizer.ts computes them once per step). */
export interface AdamScalars {
  beta1: number;
  beta2: number;
  clipScale: number;
  decay: number;
  stepSize: number;
  secondCorrection: number;
  eps: number;
}

function adamKernel({ inputs, attrs }: KernelArgs, h: HeapParts): tf.TensorInfo[] {
  const { param, grad } = inputs;
  const m = attrs.m as unknown as Float32Array;
  const v = attrs.v as unknown as Float32Array;
  const s = attrs.scalars as unknown as AdamScalars;
  const out = h.output(param.shape);
  const count = sizeOf(param.shape);
  h.native.adam(
    h.heap(),
    h.offset(param),
    grad ? h.offset(grad) : -1,
    count,
    h.offset(out),
    m,
    v,
    s.beta1,
    s.beta2,
    s.clipScale,
    s.decay,
    s.stepSize,
    s.secondCorrection,
    s.eps,
  );
  counts.adam++;
  return [out];
}

const handled = (...tensors: tf.Tensor[]) =>
  nativeFusedActive() && tensors.every((t) => t.dtype === 'float32' && t.size > 0 && t.rank > 0);

/**
 * LayerNorm over the last axis ([value, x̂, 1/σ as [..., 1]]), or undefined when the native path is off
 * or weight and bias are not float32 vectors of the width.
 */
export function fusedLayerNorm(
  x: tf.Tensor,
  weight: tf.Tensor,
  bias: tf.Tensor,
  epsilon: number,
): [tf.Tensor, tf.Tensor, tf.Tensor] | undefined {
  const width = lastAxis(x.shape);
  if (!handled(x, weight, bias) || weight.rank !== 1 || bias.rank !== 1) return undefined;
  if (weight.shape[0] !== width || bias.shape[0] !== width) return undefined;
  return tf.engine().runKernel('CurriculaLayerNorm', { x, weight, bias }, { epsilon }) as never;
}

/** [dx, dweight, dbias] of fusedLayerNorm from its saved x̂ and 1/σ. */
export function fusedLayerNormGrad(
  dy: tf.Tensor,
  xHat: tf.Tensor,
  r: tf.Tensor,
  weight: tf.Tensor,
): [tf.Tensor, tf.Tensor, tf.Tensor] {
  return tf.engine().runKernel('CurriculaLayerNormGrad', { dy, xHat, r, weight }) as never;
}

/** GELU (tanh approximation, as layers.ts), or undefined when the native path is off. */
export function fusedGelu(x: tf.Tensor): tf.Tensor | undefined {
  if (!handled(x)) return undefined;
  return tf.engine().runKernel('CurriculaGelu', { x }) as tf.Tensor;
}

/** dy · GELU'(x). */
export function fusedGeluGrad(dy: tf.Tensor, x: tf.Tensor): tf.Tensor {
  return tf.engine().runKernel('CurriculaGeluGrad', { dy, x }) as tf.Tensor;
}

/**
 * Whether fusedMaskedSoftmax handles x and mask now: the native path is on and the mask is [T, S], the
 * last two axes of x.
 */
export function fusedMaskedSoftmaxHandles(x: tf.Tensor, mask: tf.Tensor): boolean {
  if (!handled(x, mask) || x.rank < 2 || mask.rank !== 2) return false;
  return mask.shape[0] === x.shape[x.rank - 2] && mask.shape[1] === x.shape[x.rank - 1];
}

/** softmax(x + mask) over the last axis for x [..., T, S] and an additive mask [T, S]. */
export function fusedMaskedSoftmax(x: tf.Tensor, mask: tf.Tensor): tf.Tensor {
  return tf.engine().runKernel('CurriculaMaskedSoftmax', { x, mask }) as tf.Tensor;
}

/** The softmax gradient over the last axis from the softmax output y: y · (dy − Σ dy·y). */
export function fusedSoftmaxGrad(dy: tf.Tensor, y: tf.Tensor): tf.Tensor {
  return tf.engine().runKernel('CurriculaSoftmaxGrad', { dy, y }) as tf.Tensor;
}

/** Σ x² over all the tensors, in float64 in index order, or undefined when the native path is off. */
export function fusedSumOfSquares(tensors: Iterable<tf.Tensor>): number | undefined {
  const list = [...tensors];
  if (!addon || !nativeFusedActive() || list.some((t) => t.dtype !== 'float32')) return undefined;
  const backend = tf.backend() as unknown as HeapBackend;
  let sum = 0;
  for (const t of list) {
    if (t.size === 0) continue;
    const offset = backend.dataIdMap.get(t.dataId).memoryOffset;
    sum = addon.sumSquares(backend.wasm.HEAPU8, offset, t.size, sum);
  }
  return sum;
}

/**
 * One Adam/AdamW step of one parameter as a new tensor (m and v updated in place), or undefined when the
 * native path is off. `grad` undefined means a zero gradient.
 */
export function fusedAdam(
  param: tf.Tensor,
  grad: tf.Tensor | undefined,
  m: Float32Array,
  v: Float32Array,
  scalars: AdamScalars,
): tf.Tensor | undefined {
  if (!handled(param) || (grad && (grad.dtype !== 'float32' || grad.size !== param.size))) return undefined;
  if (m.length !== param.size || v.length !== param.size) return undefined;
  const inputs: tf.NamedTensorMap = grad ? { param, grad } : { param };
  return tf.engine().runKernel('CurriculaAdam', inputs, { m, v, scalars } as never) as tf.Tensor;
}
