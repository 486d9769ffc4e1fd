// tfjs runtime for the embedded policy: one place that imports tfjs, picks the backend and patches the
// wasm kernels. Every file under src/policy imports `tf` from here so that all of them share one engine.
//
// The wasm kernels are patched as described in wasm-kernels.ts: the two fixes of
// reference/verifiers-and-ml.md §3 (UnsortedSegmentSum; transpose-free BatchMatMul), batched matmuls
// run slice by slice through XNNPACK, copy-free Identity, and faster Slice, SplitV and GatherV2.
//
// Where the native addon is built (native-kernels.ts), BatchMatMul and _FusedMatMul then run on OpenBLAS
// in place on the wasm heap, with the kernels above as their fallback.
//
// Threads: tfjs-backend-wasm runs single-threaded under Node (tfjs issue #3830), so we do not try.
import { createRequire } from 'node:module';
import path from 'node:path';
import * as tf from '@tensorflow/tfjs';
import { setWasmPaths } from '@tensorflow/tfjs-backend-wasm';
import { installNativeKernels } from './native-kernels.ts';
import {
  batchedMatMulBySlices,
  batchSize,
  bindWasmBatchMatMul,
  identity,
  type KernelArgs,
  makeGather,
  makeSlice,
  makeSplitV,
  replaceKernel,
  sameBatch,
  unsortedSegmentSum,
  type WasmBackend,
} from './wasm-kernels.ts';

export { tf };

export type RuntimeBackend = 'wasm' | 'cpu';

let kernelsPatched = false;
let wasmPathsSet = false;
let activeBackend: RuntimeBackend | undefined;
let slicedBatchMatMul = true;
/** Batched matmuls with fewer rows per slice than this keep the stock kernel. */
const minimumSliceRows = 8;
/** How many batched matmuls took the per-slice XNNPACK path (lets tests check that it is reached). */
let slicedBatchMatMulCalls = 0;

export function slicedBatchMatMulCount(): number {
  return slicedBatchMatMulCalls;
}

/** Turns the per-slice XNNPACK path for batched matmuls on or off; for benchmarks and tests. */
export function setSlicedBatchMatMul(enabled: boolean): void {
  slicedBatchMatMul = enabled;
}

/**
 * Initialises tfjs with the given backend (default wasm) and the wasm kernel fixes. Idempotent: calling it
 * again with the same backend is free; calling it with the other backend switches the global backend
 * (tests use this to compare wasm and cpu). Tensors made on one backend must not be used on the other.
 */
export async function initRuntime(backend: RuntimeBackend = 'wasm'): Promise<void> {
  // Calls are serialised so that concurrent callers never interleave a backend switch.
  const next = initialisation.then(() => switchBackend(backend));
  initialisation = next.catch(() => undefined);
  return next;
}

let initialisation: Promise<void> = Promise.resolve();

async function switchBackend(backend: RuntimeBackend): Promise<void> {
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
    installNativeKernels();
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
  replaceKernel('Identity', () => identity);
  replaceKernel('Slice', makeSlice);
  replaceKernel('SplitV', makeSplitV);
  replaceKernel('GatherV2', makeGather);

  const original = tf.getKernel('BatchMatMul', 'wasm');
  const transpose = tf.getKernel('Transpose', 'wasm');
  if (!original || !transpose) throw new Error('tfjs wasm backend lacks BatchMatMul or Transpose');
  // tfjs runs setupFunc only when a backend initialises, which has already happened here: bind now,
  // and again in setupFunc should the backend ever be re-created.
  let wasmBatchMatMul = bindWasmBatchMatMul(tf.backend());
  tf.unregisterKernel('BatchMatMul', 'wasm');
  tf.registerKernel({
    kernelName: 'BatchMatMul',
    backendName: 'wasm',
    // The original setup binds the wasm function that the original kernel calls.
    setupFunc: (backend) => {
      original.setupFunc?.(backend);
      wasmBatchMatMul = bindWasmBatchMatMul(backend);
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
      // Per slice the XNNPACK call costs ~30 µs of setup, so it pays off only from 8 rows on (measured:
      // at 256 slices of [m, 32] @ [32, 128], m = 1: 2.8 ms stock vs 10.6 sliced; m = 8: 15.6 vs 11.9).
      if (
        slicedBatchMatMul &&
        a.dtype === 'float32' &&
        a.shape[a.shape.length - 2] >= minimumSliceRows &&
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
