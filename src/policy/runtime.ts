// tfjs runtime for the embedded policy: one place that imports tfjs, picks the backend and patches the
// wasm kernels. Every file under src/policy imports `tf` from here so that all of them share one engine.
//
// Two fixes from reference/verifiers-and-ml.md §3, plus one of ours:
// 1. wasm has no `UnsortedSegmentSum` kernel, so `tf.gather` (the embedding lookup) has no gradient.
//    We register a plain-JS one (one pass over the rows; cost is negligible next to the matmuls).
// 2. The wasm `BatchMatMul` reaches XNNPACK only when batch == 1 and neither operand is transposed;
//    gradients always pass transpose flags and run ~10x slower. The wrapper materialises the transposes.
// 3. Batched matmuls (attention: batch = B·H) never reach XNNPACK and run at ~2 GFLOP/s. The wrapper
//    calls the wasm matmul once per batch slice on zero-copy views into the operands, so every slice
//    takes the XNNPACK path (see `batchedMatMulBySlices`).
//
// Threads: tfjs-backend-wasm runs single-threaded under Node (tfjs issue #3830), so we do not try.
import { createRequire } from 'node:module';
import path from 'node:path';
import * as tf from '@tensorflow/tfjs';
import { setWasmPaths } from '@tensorflow/tfjs-backend-wasm';

export { tf };

export type RuntimeBackend = 'wasm' | 'cpu';

/** The parts of tfjs-backend-wasm's BackendWasm that the kernels below use. */
interface WasmBackend {
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
}

/** Allocates tensor ids for zero-copy views; tfjs's own counter is private, so we count down from -1. */
let nextViewId = -1;
let kernelsPatched = false;
let wasmPathsSet = false;
let activeBackend: RuntimeBackend | undefined;
let slicedBatchMatMul = true;
/** How many batched matmuls took the per-slice XNNPACK path (lets tests check that it is reached). */
let slicedBatchMatMulCalls = 0;

export function slicedBatchMatMulCount(): number {
  return slicedBatchMatMulCalls;
}

/** Turns fix 3 (per-slice XNNPACK for batched matmuls) on or off; for benchmarks and tests. */
export function setSlicedBatchMatMul(enabled: boolean): void {
  slicedBatchMatMul = enabled;
}

/**
 * Initialises tfjs with the given backend (default wasm) and the wasm kernel fixes. Idempotent: calling it
 * again with the same backend is free; calling it with the other backend switches the global backend
 * (tests use this to compare wasm and cpu). Tensors made on one backend must not be used on the other.
 */
export async function initRuntime(backend: RuntimeBackend = 'wasm'): Promise<void> {
  if (activeBackend === backend && tf.getBackend() === backend) return;
  // PROD silences the "install tfjs-node" banner of the cpu backend; it changes no numerics.
  tf.env().set('PROD', true);
  if (backend === 'wasm' && !wasmPathsSet) {
    const require = createRequire(import.meta.url);
    const packageDir = path.dirname(require.resolve('@tensorflow/tfjs-backend-wasm/package.json'));
    setWasmPaths(`${path.join(packageDir, 'dist')}${path.sep}`);
    wasmPathsSet = true;
  }
  const ok = await tf.setBackend(backend);
  if (!ok) throw new Error(`tfjs could not initialise the '${backend}' backend`);
  await tf.ready();
  if (backend === 'wasm' && !kernelsPatched) {
    patchWasmKernels();
    kernelsPatched = true;
  }
  activeBackend = backend;
}

/** The backend set by the last initRuntime call (undefined before the first). */
export function runtimeBackend(): RuntimeBackend | undefined {
  return activeBackend;
}

function patchWasmKernels(): void {
  tf.registerKernel({
    kernelName: 'UnsortedSegmentSum',
    backendName: 'wasm',
    kernelFunc: unsortedSegmentSum as unknown as tf.KernelFunc,
  });

  const original = tf.getKernel('BatchMatMul', 'wasm');
  const transpose = tf.getKernel('Transpose', 'wasm');
  if (!original || !transpose) throw new Error('tfjs wasm backend lacks BatchMatMul or Transpose');
  const bind = (backend: unknown) =>
    (backend as WasmBackend).wasm.cwrap('BatchMatMul', null, [
      'number', // a id
      'array', // a shape bytes
      'number', // a rank
      'number', // b id
      'array', // b shape bytes
      'number', // b rank
      'number', // transposeA
      'number', // transposeB
      'number', // out id
    ]);
  // tfjs runs setupFunc only when a backend initialises, which has already happened here: bind now,
  // and again in setupFunc should the backend ever be re-created.
  let wasmBatchMatMul = bind(tf.backend());
  tf.unregisterKernel('BatchMatMul', 'wasm');
  tf.registerKernel({
    kernelName: 'BatchMatMul',
    backendName: 'wasm',
    // The original setup binds the wasm function that the original kernel calls.
    setupFunc: (backend) => {
      original.setupFunc?.(backend);
      wasmBatchMatMul = bind(backend);
    },
    kernelFunc: (({ inputs, backend, attrs }: KernelArgs) => {
      const wasmBackend = backend as unknown as WasmBackend;
      let { a, b } = inputs as { a: tf.TensorInfo; b: tf.TensorInfo };
      const temporaries: tf.TensorInfo[] = [];
      const swapLastTwo = (x: tf.TensorInfo): tf.TensorInfo => {
        const rank = x.shape.length;
        const perm = [...Array(rank).keys()];
        [perm[rank - 1], perm[rank - 2]] = [perm[rank - 2], perm[rank - 1]];
        const y = transpose.kernelFunc({ inputs: { x }, backend, attrs: { perm } }) as tf.TensorInfo;
        temporaries.push(y);
        return y;
      };
      if (attrs.transposeA) a = swapLastTwo(a);
      if (attrs.transposeB) b = swapLastTwo(b);
      let out: tf.TensorInfo;
      if (
        slicedBatchMatMul &&
        a.dtype === 'float32' &&
        sameBatch(a.shape, b.shape) &&
        batchSize(a.shape) > 1
      ) {
        out = batchedMatMulBySlices(wasmBackend, wasmBatchMatMul, a, b);
        slicedBatchMatMulCalls++;
      } else {
        const plainAttrs = { ...attrs, transposeA: false, transposeB: false };
        out = original.kernelFunc({ inputs: { a, b }, backend, attrs: plainAttrs }) as tf.TensorInfo;
      }
      for (const t of temporaries) wasmBackend.disposeData(t.dataId);
      return out;
    }) as unknown as tf.KernelFunc,
  });
}

interface KernelArgs {
  inputs: Record<string, tf.TensorInfo>;
  backend: tf.KernelBackend;
  attrs: tf.NamedAttrMap;
}

function batchSize(shape: readonly number[]): number {
  let size = 1;
  for (let i = 0; i < shape.length - 2; i++) size *= shape[i];
  return size;
}

function sameBatch(aShape: readonly number[], bShape: readonly number[]): boolean {
  if (aShape.length !== bShape.length) return false;
  for (let i = 0; i < aShape.length - 2; i++) if (aShape[i] !== bShape[i]) return false;
  return true;
}

/**
 * out[i] = a[i] @ b[i] for every batch index i, without transposes. a: [..., m, k], b: [..., k, n].
 * Each slice is a tensor id registered on the wasm side that points into the operand's heap memory (no
 * copy), so the wasm kernel sees batch 1 and uses XNNPACK. The views are unregistered afterwards with
 * `tfjs.disposeData(id)`, which runs the kernel's cache-disposal callbacks but never frees the memory
 * (the memory belongs to a, b and out). View ids are negative so they never collide with tfjs's ids.
 */
function batchedMatMulBySlices(
  backend: WasmBackend,
  wasmBatchMatMul: (...args: unknown[]) => void,
  a: tf.TensorInfo,
  b: tf.TensorInfo,
): tf.TensorInfo {
  const rank = a.shape.length;
  const m = a.shape[rank - 2];
  const k = a.shape[rank - 1];
  const n = b.shape[rank - 1];
  if (b.shape[rank - 2] !== k) {
    throw new Error(`matMul: inner dimensions differ, shapes ${a.shape} and ${b.shape}`);
  }
  const batch = batchSize(a.shape);
  const out = backend.makeOutput([...a.shape.slice(0, -2), m, n], 'float32');
  const aOffset = backend.dataIdMap.get(a.dataId).memoryOffset;
  const bOffset = backend.dataIdMap.get(b.dataId).memoryOffset;
  const outOffset = backend.dataIdMap.get(out.dataId).memoryOffset;
  const aShapeBytes = new Uint8Array(new Int32Array([1, m, k]).buffer);
  const bShapeBytes = new Uint8Array(new Int32Array([1, k, n]).buffer);
  const registry = backend.wasm.tfjs;
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

/** out[segmentIds[i]] += x[i] (rows with an id outside [0, numSegments) are dropped, as in TF). */
function unsortedSegmentSum({ inputs, backend, attrs }: KernelArgs): tf.TensorInfo {
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
