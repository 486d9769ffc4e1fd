// The native matmul and Sum kernels of the wasm backend (native-kernels.ts loads the addon and registers
// them): BatchMatMul and _FusedMatMul run OpenBLAS's cblas_sgemm (native/curricula_native.c) in place on
// the wasm heap. The operands already live in the WebAssembly memory; the addon reads them at their heap
// offsets and writes the output that we allocated there with backend.makeOutput, so nothing is copied.
// Transposes are BLAS flags, broadcast batch dimensions are a stride of 0 (or one call per batch entry
// in the general case). Issue 10's probe measured the base train step 2.3× faster this way (matmul
// 235 → 63 ms per step).
//
// Sum over the leading axes (the bias gradient of each linear layer; the stock kernel transposes the whole
// input first) is a plain C loop over the rows, also in place.
//
// Each kernel returns undefined for what it does not handle (non-float32 dtypes, the prelu activation, a
// bias that is not a vector of length n, a Sum not over the leading axes): the wasm kernel runs then.
import * as tf from '@tensorflow/tfjs';
import type { KernelArgs, WasmBackend } from './wasm-kernels.ts';

/** The addon's matmul and Sum exports (native/curricula_native.c documents the arguments). */
export interface MatMulAddon {
  matmul(
    heap: Uint8Array,
    transposeA: boolean,
    transposeB: boolean,
    m: number,
    n: number,
    k: number,
    batch: number,
    aOffset: number,
    aStride: number,
    bOffset: number,
    bStride: number,
    cOffset: number,
    biasOffset: number,
    activation: number,
    alpha: number,
  ): void;
  sumLeading(heap: Uint8Array, xOffset: number, outer: number, inner: number, outOffset: number): void;
}

type HeapBackend = WasmBackend & { wasm: { HEAPU8: Uint8Array } };

/** tfjs-backend-wasm's FusableActivation numbers; prelu (3) stays with the stock kernel. */
const activationCodes: Record<string, number> = {
  linear: 0,
  relu: 1,
  relu6: 2,
  leakyrelu: 4,
  sigmoid: 5,
  elu: 6,
};

let nativeCalls = 0;
let nativeSumCalls = 0;

/** How many matmuls ran natively (lets tests check that the native path is reached). */
export function nativeMatMulCount(): number {
  return nativeCalls;
}

/** How many Sums ran natively. */
export function nativeSumCount(): number {
  return nativeSumCalls;
}

/**
 * tf.sum of float32 x over its leading axes [0, r) with r < rank (the case where the stock kernel
 * transposes); undefined for every other case.
 */
export function nativeSum(
  native: MatMulAddon,
  { inputs, backend, attrs }: KernelArgs,
): tf.TensorInfo | undefined {
  const { x } = inputs;
  if (x.dtype !== 'float32') return undefined;
  const rank = x.shape.length;
  const axes = [...new Set(tf.util.parseAxisParam(attrs.axis as number | number[], x.shape))].sort(
    (p, q) => p - q,
  );
  const leading = axes.length;
  if (leading === 0 || leading >= rank || axes.some((axis, i) => axis !== i)) return undefined;
  const outer = sizeOf(x.shape.slice(0, leading));
  const innerShape = x.shape.slice(leading);
  const wasmBackend = backend as unknown as HeapBackend;
  const outShape = attrs.keepDims ? [...new Array<number>(leading).fill(1), ...innerShape] : innerShape;
  const out = wasmBackend.makeOutput(outShape, 'float32');
  // As for matmul: the heap only after makeOutput.
  const heap = wasmBackend.wasm.HEAPU8;
  const offsetOf = (tensor: tf.TensorInfo) => wasmBackend.dataIdMap.get(tensor.dataId).memoryOffset;
  native.sumLeading(heap, offsetOf(x), outer, sizeOf(innerShape), offsetOf(out));
  nativeSumCalls++;
  return out;
}

/** The shapes and flags of a product the addon computes. */
interface MatMulPlan {
  transposeA: boolean;
  transposeB: boolean;
  /** out[b] = op(a[b]) · op(b[b]): [m, k] · [k, n] → [m, n] */
  m: number;
  n: number;
  k: number;
  /** activationCodes' number and leakyrelu's slope */
  activation: number;
  alpha: number;
  aBatchShape: number[];
  bBatchShape: number[];
  /** The broadcast of the two batch shapes, the output's leading dimensions. */
  batchShape: number[];
}

/** The native product, or undefined for the cases left to the wasm kernel. */
export function nativeMatMul(
  native: MatMulAddon,
  { inputs, backend, attrs }: KernelArgs,
): tf.TensorInfo | undefined {
  const plan = matMulPlan(inputs, attrs);
  if (plan === undefined) return undefined;
  const { a, b, bias } = inputs;
  const wasmBackend = backend as unknown as HeapBackend;
  const out = wasmBackend.makeOutput([...plan.batchShape, plan.m, plan.n], 'float32');
  // Only now take the heap: makeOutput may have grown the wasm memory and replaced its buffer.
  const heap = wasmBackend.wasm.HEAPU8;
  const offsetOf = (tensor: tf.TensorInfo) => wasmBackend.dataIdMap.get(tensor.dataId).memoryOffset;
  callMatMul(native, heap, plan, {
    a: offsetOf(a),
    b: offsetOf(b),
    out: offsetOf(out),
    bias: bias ? offsetOf(bias) : -1,
  });
  nativeCalls++;
  return out;
}

/** The plan of a float32 product with a known activation and a bias of length n; undefined otherwise. */
function matMulPlan(inputs: KernelArgs['inputs'], attrs: KernelArgs['attrs']): MatMulPlan | undefined {
  const { a, b, bias, preluActivationWeights } = inputs;
  if (a.dtype !== 'float32' || b.dtype !== 'float32' || preluActivationWeights) return undefined;
  const activation = activationCodes[(attrs.activation as string | undefined) ?? 'linear'];
  if (activation === undefined) return undefined;
  const transposeA = Boolean(attrs.transposeA);
  const transposeB = Boolean(attrs.transposeB);
  const aRank = a.shape.length;
  const bRank = b.shape.length;
  if (aRank < 2 || bRank < 2) return undefined;
  const m = a.shape[transposeA ? aRank - 1 : aRank - 2];
  const k = a.shape[transposeA ? aRank - 2 : aRank - 1];
  const n = b.shape[transposeB ? bRank - 2 : bRank - 1];
  if (b.shape[transposeB ? bRank - 1 : bRank - 2] !== k) return undefined; // the wasm kernel says why
  if (bias && (bias.dtype !== 'float32' || bias.shape.length !== 1 || bias.shape[0] !== n)) return undefined;
  const aBatchShape = a.shape.slice(0, -2);
  const bBatchShape = b.shape.slice(0, -2);
  const batchShape = tf.broadcast_util.assertAndGetBroadcastShape(aBatchShape, bBatchShape);
  const alpha = (attrs.leakyreluAlpha as number | undefined) || 0;
  return { transposeA, transposeB, m, n, k, activation, alpha, aBatchShape, bBatchShape, batchShape };
}

/** Runs the plan on operands at these heap byte offsets (bias −1 when none). */
function callMatMul(
  native: MatMulAddon,
  heap: Uint8Array,
  plan: MatMulPlan,
  offsets: { a: number; b: number; out: number; bias: number },
): void {
  const { transposeA, transposeB, m, n, k, activation, alpha, aBatchShape, bBatchShape, batchShape } = plan;
  const aSize = m * k;
  const bSize = k * n;
  const batch = sizeOf(batchShape);
  const aBatch = sizeOf(aBatchShape);
  const bBatch = sizeOf(bBatchShape);
  // Each operand either covers the whole output batch (its batch shape is the output's, up to leading
  // ones) or is a single matrix reused for every entry (stride 0).
  if ((aBatch === batch || aBatch === 1) && (bBatch === batch || bBatch === 1)) {
    const aStride = aBatch === 1 ? 0 : aSize;
    const bStride = bBatch === 1 ? 0 : bSize;
    native.matmul(
      heap,
      transposeA,
      transposeB,
      m,
      n,
      k,
      batch,
      offsets.a,
      aStride,
      offsets.b,
      bStride,
      offsets.out,
      offsets.bias,
      activation,
      alpha,
    );
    return;
  }
  // General broadcasting ([2, 1] with [1, 3], …): one call per output batch entry.
  const aIndices = broadcastIndices(aBatchShape, batchShape);
  const bIndices = broadcastIndices(bBatchShape, batchShape);
  for (let i = 0; i < batch; i++) {
    native.matmul(
      heap,
      transposeA,
      transposeB,
      m,
      n,
      k,
      1,
      offsets.a + 4 * aIndices[i] * aSize,
      0,
      offsets.b + 4 * bIndices[i] * bSize,
      0,
      offsets.out + 4 * i * m * n,
      offsets.bias,
      activation,
      alpha,
    );
  }
}

function sizeOf(shape: readonly number[]): number {
  return shape.reduce((product, size) => product * size, 1);
}

/** For each entry of the broadcast batch `outShape`, the flat index of the entry of `shape` it reads. */
export function broadcastIndices(shape: readonly number[], outShape: readonly number[]): number[] {
  const rank = outShape.length;
  const padded = [...new Array<number>(rank - shape.length).fill(1), ...shape];
  const strides = new Array<number>(rank);
  let stride = 1;
  for (let axis = rank - 1; axis >= 0; axis--) {
    strides[axis] = padded[axis] === 1 ? 0 : stride;
    stride *= padded[axis];
  }
  const indices: number[] = [];
  const position = new Array<number>(rank).fill(0);
  for (let i = 0; i < sizeOf(outShape); i++) {
    let index = 0;
    for (let axis = 0; axis < rank; axis++) index += position[axis] * strides[axis];
    indices.push(index);
    for (let axis = rank - 1; axis >= 0; axis--) {
      if (++position[axis] < outShape[axis]) break;
      position[axis] = 0;
    }
  }
  return indices;
}
