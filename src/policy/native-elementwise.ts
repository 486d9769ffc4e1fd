// Native elementwise kernels for the wasm backend (native/elementwise.c, in place on the wasm heap like the
// matmul of native-kernels.ts): float32 Add, Sub, Multiply, RealDiv and Square with any broadcasting, and
// Sum, Mean and Max over the trailing axes.
//
// Why: the stock wasm binary kernels fall into a generic per-element index loop as soon as an operand is
// broadcast (a bias [n] against [m, n], LayerNorm's [m, 1] mean against [m, n], the sampler's
// [R, H, 1, hd] × [R, H, C, hd]), and its reductions are scalar loops; a train step spent 67 ms of 186 in
// Multiply/Add/Sub, KV-cached sampling 1.2 s of 1.9 in Multiply and the last-axis Sum.
//
// broadcastPlan turns two shapes into the fewest axes with per-operand strides (0 where an operand is
// broadcast): adjacent axes along which both operands are either broadcast or not merge into one, so a
// bias add is [m, n] with strides [0, 1], LayerNorm's is [m, n] with [1, 0] and a same-shape operation one
// contiguous axis. The C loop nest then runs vectorised unit- or zero-stride inner loops.
//
// Every kernel falls back to the one registered before it (the stock wasm kernel, or native-kernels.ts's
// leading-axis Sum) for other dtypes and cases, and obeys setNativeKernels (via `enabled`) and, for A/B
// measurements of this file alone, setNativeElementwise.
import * as tf from '@tensorflow/tfjs';
import { type KernelArgs, replaceKernel, type WasmBackend } from './wasm-kernels.ts';

/** The addon's elementwise exports (native/elementwise.c documents the arguments). */
interface ElementwiseAddon {
  binary(
    heap: Uint8Array,
    op: number,
    aOffset: number,
    bOffset: number,
    outOffset: number,
    dims: Int32Array,
  ): void;
  reduceTrailing(
    heap: Uint8Array,
    op: number,
    xOffset: number,
    outer: number,
    inner: number,
    outOffset: number,
  ): void;
}

type HeapBackend = WasmBackend & { wasm: { HEAPU8: Uint8Array } };

/** The C loop nest's largest rank (after merging axes). */
const maxRank = 8;
const binaryOps: Record<string, number> = { Add: 0, Sub: 1, Multiply: 2, RealDiv: 3 };
const multiplyOp = 2;
/** [kernel, reduceTrailing op, the attribute holding the axes]. */
const reductions: [string, number, string][] = [
  ['Sum', 0, 'axis'],
  ['Mean', 1, 'axis'],
  ['Max', 2, 'reductionIndices'],
];

let elementwiseOn = true;
let binaryCalls = 0;
let reduceCalls = 0;
/** The dims argument of binary(), reused: [rank, shape, aStrides, bStrides]. */
const dims = new Int32Array(1 + 3 * maxRank);

/** Turns these kernels alone on or off (setNativeKernels turns off every native kernel); for A/B runs. */
export function setNativeElementwise(on: boolean): void {
  elementwiseOn = on;
}

/** How many binary operations (and Squares) ran natively. */
export function nativeBinaryCount(): number {
  return binaryCalls;
}

/** How many trailing-axis Sum / Mean / Max ran natively. */
export function nativeReduceCount(): number {
  return reduceCalls;
}

export interface BroadcastPlan {
  shape: number[];
  aStrides: number[];
  bStrides: number[];
}

/**
 * The output of broadcasting aShape with bShape as the fewest row-major axes, with each operand's element
 * strides along them (0 where it is broadcast). Axes of size 1 are dropped; a 1-element result is [1].
 */
export function broadcastPlan(aShape: readonly number[], bShape: readonly number[]): BroadcastPlan {
  const outShape = tf.backend_util.assertAndGetBroadcastShape([...aShape], [...bShape]);
  const rank = outShape.length;
  const pad = (shape: readonly number[]) => [...new Array<number>(rank - shape.length).fill(1), ...shape];
  const aPadded = pad(aShape);
  const bPadded = pad(bShape);
  const plan: BroadcastPlan = { shape: [], aStrides: [], bStrides: [] };
  let aStride = 1;
  let bStride = 1;
  let previous = -1; // the broadcast pattern of the last kept axis: 2 · (a broadcast) + (b broadcast)
  for (let axis = rank - 1; axis >= 0; axis--) {
    const size = outShape[axis];
    if (size === 1) continue;
    const aBroadcast = aPadded[axis] === 1;
    const bBroadcast = bPadded[axis] === 1;
    const pattern = (aBroadcast ? 2 : 0) + (bBroadcast ? 1 : 0);
    if (pattern === previous) {
      plan.shape[plan.shape.length - 1] *= size;
    } else {
      plan.shape.push(size);
      plan.aStrides.push(aBroadcast ? 0 : aStride);
      plan.bStrides.push(bBroadcast ? 0 : bStride);
      previous = pattern;
    }
    if (!aBroadcast) aStride *= size;
    if (!bBroadcast) bStride *= size;
  }
  // Built innermost first.
  plan.shape.reverse();
  plan.aStrides.reverse();
  plan.bStrides.reverse();
  if (plan.shape.length === 0) return { shape: [1], aStrides: [0], bStrides: [0] };
  return plan;
}

/**
 * Registers the native kernels over the current wasm ones; `enabled` is native-kernels.ts's switch. An
 * addon built without elementwise.c (no `binary` export) leaves the kernels as they are.
 */
export function installElementwiseKernels(addon: unknown, enabled: () => boolean): void {
  const native = addon as ElementwiseAddon;
  if (typeof native.binary !== 'function' || typeof native.reduceTrailing !== 'function') return;
  const on = () => elementwiseOn && enabled();
  for (const [name, op] of Object.entries(binaryOps))
    replaceKernel(
      name,
      (stock) => (args) => (on() && nativeBinary(native, op, args)) || stock.kernelFunc(args as never),
    );
  replaceKernel(
    'Square',
    (stock) => (args) => (on() && nativeSquare(native, args)) || stock.kernelFunc(args as never),
  );
  for (const [name, op, axisAttribute] of reductions)
    replaceKernel(
      name,
      (stock) => (args) =>
        (on() && nativeReduce(native, op, axisAttribute, args)) || stock.kernelFunc(args as never),
    );
}

function heapOf(backend: tf.KernelBackend) {
  const wasmBackend = backend as unknown as HeapBackend;
  const offsetOf = (tensor: tf.TensorInfo) => wasmBackend.dataIdMap.get(tensor.dataId).memoryOffset;
  return { wasmBackend, offsetOf };
}

function nativeBinary(native: ElementwiseAddon, op: number, { inputs, backend }: KernelArgs) {
  const { a, b } = inputs;
  if (a.dtype !== 'float32' || b.dtype !== 'float32') return undefined;
  const outShape = tf.backend_util.assertAndGetBroadcastShape(a.shape, b.shape);
  const size = sizeOf(outShape);
  const aSize = sizeOf(a.shape);
  const bSize = sizeOf(b.shape);
  // The common cases without a plan: same shape, or a one-element operand.
  if (aSize === size && bSize === size) setDims([size], [1], [1]);
  else if (bSize === 1) setDims([size], [1], [0]);
  else if (aSize === 1) setDims([size], [0], [1]);
  else {
    const plan = broadcastPlan(a.shape, b.shape);
    if (plan.shape.length > maxRank) return undefined;
    setDims(plan.shape, plan.aStrides, plan.bStrides);
  }
  const { wasmBackend, offsetOf } = heapOf(backend);
  const out = wasmBackend.makeOutput(outShape, 'float32');
  if (size === 0) return out;
  // The heap only after makeOutput: an allocation may grow the wasm memory and replace its buffer.
  native.binary(wasmBackend.wasm.HEAPU8, op, offsetOf(a), offsetOf(b), offsetOf(out), dims);
  binaryCalls++;
  return out;
}

function setDims(shape: number[], aStrides: number[], bStrides: number[]): void {
  const rank = shape.length;
  dims[0] = rank;
  for (let axis = 0; axis < rank; axis++) {
    dims[1 + axis] = shape[axis];
    dims[1 + rank + axis] = aStrides[axis];
    dims[1 + 2 * rank + axis] = bStrides[axis];
  }
}

/** Square as x · x through the same loop. */
function nativeSquare(native: ElementwiseAddon, { inputs, backend }: KernelArgs) {
  const { x } = inputs;
  if (x.dtype !== 'float32') return undefined;
  const { wasmBackend, offsetOf } = heapOf(backend);
  const out = wasmBackend.makeOutput([...x.shape], 'float32');
  const size = sizeOf(x.shape);
  if (size === 0) return out;
  setDims([size], [1], [1]);
  native.binary(wasmBackend.wasm.HEAPU8, multiplyOp, offsetOf(x), offsetOf(x), offsetOf(out), dims);
  binaryCalls++;
  return out;
}

/** Sum / Mean / Max of float32 x over its last k ≥ 1 axes; undefined for every other case. */
function nativeReduce(
  native: ElementwiseAddon,
  op: number,
  axisAttribute: string,
  { inputs, backend, attrs }: KernelArgs,
) {
  const { x } = inputs;
  if (x.dtype !== 'float32') return undefined;
  const rank = x.shape.length;
  const axes = [...new Set(tf.util.parseAxisParam(attrs[axisAttribute] as number | number[], x.shape))].sort(
    (p, q) => p - q,
  );
  const first = rank - axes.length;
  if (axes.length === 0 || axes.some((axis, i) => axis !== first + i)) return undefined;
  const outer = sizeOf(x.shape.slice(0, first));
  const inner = sizeOf(x.shape.slice(first));
  if (inner === 0) return undefined; // the stock kernels' empty-reduction conventions
  const { wasmBackend, offsetOf } = heapOf(backend);
  const kept = x.shape.slice(0, first);
  const outShape = attrs.keepDims ? [...kept, ...new Array<number>(axes.length).fill(1)] : kept;
  const out = wasmBackend.makeOutput(outShape, 'float32');
  if (outer === 0) return out;
  native.reduceTrailing(wasmBackend.wasm.HEAPU8, op, offsetOf(x), outer, inner, offsetOf(out));
  reduceCalls++;
  return out;
}

function sizeOf(shape: readonly number[]): number {
  return shape.reduce((product, size) => product * size, 1);
}
