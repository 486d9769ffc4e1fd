// Replacement and added kernels for tfjs-backend-wasm 4.22 (registered by runtime.ts). Each one fixes a
// measured problem of the stock backend; reference/verifiers-and-ml.md §3 has the first two.
//
// - UnsortedSegmentSum: missing on wasm, so tf.gather had no gradient. Plain JS, one pass over the rows.
// - BatchMatMul: the stock kernel reaches XNNPACK only for batch 1 without transpose flags (gradients
//   always set them: ~10x slower). We materialise transposes, and for batch > 1 (attention, batch = B·H,
//   ~2 GFLOP/s stock) call the wasm matmul once per batch slice on zero-copy views into the operands.
// - Identity: the stock kernel copies the data; tfjs clones every tensor it saves for the backward pass,
//   so each step paid hundreds of copies. Tensors are immutable, so we share the data (as the cpu
//   backend does).
// - Slice / SplitV: the stock kernel first copies the whole input out of the wasm heap (readSync) for
//   every slice; ours reads a view and copies only the contiguous runs of the result.
// - GatherV2: run copies instead of the stock per-index checks (see makeGather).
import * as tf from '@tensorflow/tfjs';

/** The parts of tfjs-backend-wasm's BackendWasm that these kernels use. */
export interface WasmBackend {
  wasm: {
    cwrap(name: string, returnType: null, argTypes: string[]): (...args: unknown[]) => void;
    tfjs: {
      registerTensor(id: number, size: number, memoryOffset: number): void;
      disposeData(id: number): void;
    };
  };
  dataIdMap: { get(dataId: object): { id: number; memoryOffset: number } };
  makeOutput(shape: number[], dtype: tf.DataType): tf.TensorInfo;
  typedArrayFromHeap(info: tf.TensorInfo): Float32Array | Int32Array | Uint8Array;
  disposeData(dataId: object): boolean;
  incRef(dataId: object): void;
}

export interface KernelArgs {
  inputs: Record<string, tf.TensorInfo>;
  backend: tf.KernelBackend;
  attrs: tf.NamedAttrMap;
}

/** Re-registers a wasm kernel with a replacement built from the original (kept for string inputs). */
export function replaceKernel(
  name: string,
  build: (original: tf.KernelConfig) => (args: KernelArgs) => unknown,
): void {
  const original = tf.getKernel(name, 'wasm');
  if (!original) throw new Error(`tfjs wasm backend lacks the ${name} kernel`);
  tf.unregisterKernel(name, 'wasm');
  tf.registerKernel({
    kernelName: name,
    backendName: 'wasm',
    setupFunc: original.setupFunc,
    kernelFunc: build(original) as unknown as tf.KernelFunc,
  });
}

export type WasmBatchMatMul = (...args: unknown[]) => void;

/** Binds the wasm BatchMatMul entry point (the stock kernel keeps its own binding private). */
export function bindWasmBatchMatMul(backend: unknown): WasmBatchMatMul {
  return (backend as WasmBackend).wasm.cwrap('BatchMatMul', null, [
    'number', // a id
    'array', // a shape bytes (int32)
    'number', // a rank
    'number', // b id
    'array', // b shape bytes
    'number', // b rank
    'number', // transposeA
    'number', // transposeB
    'number', // out id
  ]);
}

/**
 * Tensor ids for zero-copy views; tfjs counts up from 1, we count down from −1 so they never collide.
 * Each view is unregistered right after use, so ids may be reused: wrap around long before 32-bit limits.
 */
let nextViewId = -1;
const lowestViewId = -(2 ** 30);

/**
 * out[i] = a[i] @ b[i] for every batch index i, without transposes. a: [..., m, k], b: [..., k, n] with
 * equal batch dimensions. Each slice is a tensor id registered on the wasm side that points into the
 * operand's heap memory (no copy), so the wasm kernel sees batch 1 and uses XNNPACK. The views are then
 * unregistered with `tfjs.disposeData(id)`, which runs the kernel's operator-cache disposal callbacks
 * but frees no memory (the memory belongs to a, b and out).
 */
export function batchedMatMulBySlices(
  backend: WasmBackend,
  wasmBatchMatMul: WasmBatchMatMul,
  a: tf.TensorInfo,
  b: tf.TensorInfo,
): tf.TensorInfo {
  const rank = a.shape.length;
  const m = a.shape[rank - 2];
  const k = a.shape[rank - 1];
  const n = b.shape[rank - 1];
  if (b.shape[rank - 2] !== k)
    throw new Error(`matMul: inner dimensions differ, shapes ${a.shape} and ${b.shape}`);
  const batch = batchSize(a.shape);
  const out = backend.makeOutput([...a.shape.slice(0, -2), m, n], 'float32');
  const aOffset = backend.dataIdMap.get(a.dataId).memoryOffset;
  const bOffset = backend.dataIdMap.get(b.dataId).memoryOffset;
  const outOffset = backend.dataIdMap.get(out.dataId).memoryOffset;
  const aShapeBytes = new Uint8Array(new Int32Array([1, m, k]).buffer);
  const bShapeBytes = new Uint8Array(new Int32Array([1, k, n]).buffer);
  const registry = backend.wasm.tfjs;
  if (nextViewId - 3 * batch < lowestViewId) nextViewId = -1;
  for (let i = 0; i < batch; i++) {
    const aId = nextViewId--;
    const bId = nextViewId--;
    const outId = nextViewId--;
    registry.registerTensor(aId, m * k, aOffset + 4 * i * m * k);
    registry.registerTensor(bId, k * n, bOffset + 4 * i * k * n);
    registry.registerTensor(outId, m * n, outOffset + 4 * i * m * n);
    wasmBatchMatMul(aId, aShapeBytes, 3, bId, bShapeBytes, 3, false, false, outId);
    registry.disposeData(aId);
    registry.disposeData(bId);
    registry.disposeData(outId);
  }
  return out;
}

export function batchSize(shape: readonly number[]): number {
  let size = 1;
  for (let i = 0; i < shape.length - 2; i++) size *= shape[i];
  return size;
}

export function sameBatch(aShape: readonly number[], bShape: readonly number[]): boolean {
  if (aShape.length !== bShape.length) return false;
  for (let i = 0; i < aShape.length - 2; i++) if (aShape[i] !== bShape[i]) return false;
  return true;
}

/** out[segmentIds[i]] += x[i] (rows with an id outside [0, numSegments) are dropped, as in TF). */
export function unsortedSegmentSum({ inputs, backend, attrs }: KernelArgs): tf.TensorInfo {
  const wasmBackend = backend as unknown as WasmBackend;
  const { x, segmentIds } = inputs as { x: tf.TensorInfo; segmentIds: tf.TensorInfo };
  const numSegments = attrs.numSegments as number;
  const innerShape = x.shape.slice(segmentIds.shape.length);
  const rowSize = innerShape.reduce((product, size) => product * size, 1);
  const out = wasmBackend.makeOutput([numSegments, ...innerShape], x.dtype);
  // Heap views are taken after makeOutput: an allocation may grow (and so detach) the wasm memory.
  const outValues = wasmBackend.typedArrayFromHeap(out);
  const inValues = wasmBackend.typedArrayFromHeap(x);
  const inIds = wasmBackend.typedArrayFromHeap(segmentIds);
  outValues.fill(0);
  for (let i = 0; i < inIds.length; i++) {
    const segment = inIds[i];
    if (segment < 0 || segment >= numSegments) continue;
    const outBase = segment * rowSize;
    const inBase = i * rowSize;
    for (let j = 0; j < rowSize; j++) outValues[outBase + j] += inValues[inBase + j];
  }
  return out;
}

/** Shares the input's data (no copy); the engine disposes by reference count. */
export function identity({ inputs, backend }: KernelArgs): tf.TensorInfo {
  const { x } = inputs;
  (backend as unknown as WasmBackend).incRef(x.dataId);
  return { dataId: x.dataId, shape: x.shape, dtype: x.dtype };
}

/** x[begin : begin + size] for numeric tensors, copying whole runs along the last axis. */
export function sliceNumeric(
  backend: WasmBackend,
  x: tf.TensorInfo,
  begin: number[],
  size: number[],
): tf.TensorInfo {
  const out = backend.makeOutput(size, x.dtype);
  const total = size.reduce((product, n) => product * n, 1);
  if (total === 0) return out;
  const source = backend.typedArrayFromHeap(x);
  const target = backend.typedArrayFromHeap(out);
  const rank = x.shape.length;
  if (rank === 0) {
    target[0] = source[0];
    return out;
  }
  const strides = new Array<number>(rank);
  strides[rank - 1] = 1;
  for (let axis = rank - 2; axis >= 0; axis--) strides[axis] = strides[axis + 1] * x.shape[axis + 1];
  const run = size[rank - 1];
  const index = new Array<number>(rank - 1).fill(0); // position within the outer dimensions of `size`
  for (let written = 0; written < total; written += run) {
    let from = begin[rank - 1];
    for (let axis = 0; axis < rank - 1; axis++) from += (begin[axis] + index[axis]) * strides[axis];
    target.set(source.subarray(from, from + run), written);
    for (let axis = rank - 2; axis >= 0; axis--) {
      if (++index[axis] < size[axis]) break;
      index[axis] = 0;
    }
  }
  return out;
}

export function makeSlice(original: tf.KernelConfig) {
  return (args: KernelArgs): tf.TensorInfo => {
    const { x } = args.inputs;
    if (x.dtype === 'string') return original.kernelFunc(args as never) as tf.TensorInfo;
    const [begin, size] = tf.slice_util.parseSliceParams(
      x as unknown as tf.Tensor,
      args.attrs.begin as number[],
      args.attrs.size as number[],
    );
    return sliceNumeric(args.backend as unknown as WasmBackend, x, begin, size);
  };
}

export function makeSplitV(original: tf.KernelConfig) {
  return (args: KernelArgs): tf.TensorInfo[] => {
    const { x } = args.inputs;
    if (x.dtype === 'string') return original.kernelFunc(args as never) as tf.TensorInfo[];
    const axis = tf.util.parseAxisParam(args.attrs.axis as number, x.shape)[0];
    const sizes = tf.backend_util.prepareSplitSize(
      x as unknown as tf.Tensor,
      args.attrs.numOrSizeSplits as number[] | number,
      axis,
    );
    const begin = new Array<number>(x.shape.length).fill(0);
    return sizes.map((pieceSize) => {
      const size = [...x.shape];
      size[axis] = pieceSize;
      const piece = sliceNumeric(args.backend as unknown as WasmBackend, x, [...begin], size);
      begin[axis] += pieceSize;
      return piece;
    });
  };
}

/**
 * GatherV2 for batchDims = 0 (other cases use the stock kernel): copies whole inner runs with
 * TypedArray.set. The stock kernel checks each index through a closure and took ~5 ms for the
 * [8·127] × 128 embedding lookup of a training step; this takes well under 1 ms.
 */
export function makeGather(original: tf.KernelConfig) {
  return (args: KernelArgs): tf.TensorInfo => {
    const { x, indices } = args.inputs;
    if ((args.attrs.batchDims as number) || x.dtype === 'string') {
      return original.kernelFunc(args as never) as tf.TensorInfo;
    }
    const backend = args.backend as unknown as WasmBackend;
    const axis = tf.util.parseAxisParam(args.attrs.axis as number, x.shape)[0];
    const outer = x.shape.slice(0, axis).reduce((product, n) => product * n, 1);
    const inner = x.shape.slice(axis + 1).reduce((product, n) => product * n, 1);
    const axisSize = x.shape[axis];
    const out = backend.makeOutput(
      [...x.shape.slice(0, axis), ...indices.shape, ...x.shape.slice(axis + 1)],
      x.dtype,
    );
    const ids = backend.typedArrayFromHeap(indices);
    for (let i = 0; i < ids.length; i++) {
      if (ids[i] < 0 || ids[i] >= axisSize) {
        backend.disposeData(out.dataId);
        throw new Error(`GatherV2: the index value ${ids[i]} is not in [0, ${axisSize - 1}]`);
      }
    }
    const source = backend.typedArrayFromHeap(x);
    const target = backend.typedArrayFromHeap(out);
    let written = 0;
    for (let o = 0; o < outer; o++) {
      const base = o * axisSize * inner;
      for (let i = 0; i < ids.length; i++) {
        const from = base + ids[i] * inner;
        target.set(source.subarray(from, from + inner), written);
        written += inner;
      }
    }
    return out;
  };
}
