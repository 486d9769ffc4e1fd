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
//
// Heap exhaustion: tfjs-wasm allocates every tensor with the module's malloc and does not check the
// result. When the heap (at most 4 GiB, wasm32) is full, malloc returns 0 and tfjs writes the tensor at
// address 0, over the module's own static data; a tensor of 4 GiB or more wraps around to a small
// allocation that the kernel then overruns. Either way the module is corrupt and every later op fails
// ("memory access out of bounds") until the process restarts. guardWasmHeap makes both cases a
// WasmHeapError thrown before anything is written, so the heap stays usable; wasmRuntimeHealthy and
// resetWasmRuntime let a server check the backend after a failure and replace it (a new module, a new
// heap: every tensor of the old one is lost, so whoever held one reloads it; runtimeGeneration() counts
// the resets).
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

/** A wasm allocation that cannot succeed: the heap is full, or the tensor is larger than wasm32 allows. */
export class WasmHeapError extends Error {
  override name = 'WasmHeapError';
  constructor(readonly bytes: number) {
    super(
      `the model's wasm heap cannot hold ${bytes} more bytes (out of memory; the heap is at most 4 GiB): the operation was refused before it could corrupt the heap`,
    );
  }
}

interface GuardedModule {
  _malloc: ((bytes: number) => number) & { guarded?: true };
  _free(offset: number): void;
}

/** Makes the wasm module's malloc throw WasmHeapError instead of returning 0 or wrapping past 4 GiB. */
function guardWasmHeap(): void {
  const module = (tf.backend() as unknown as { wasm?: GuardedModule }).wasm;
  if (!module || module._malloc.guarded) return;
  // Emscripten's export starts as a stub that replaces Module._malloc with the real function on its
  // first call (which would drop a wrapper installed before): make that call first.
  module._free(module._malloc(8));
  const malloc = module._malloc;
  const guarded = Object.assign(
    (bytes: number): number => {
      // malloc takes a 32-bit size: 2^32 bytes or more would silently allocate the remainder.
      if (bytes >= 2 ** 32 - 2 ** 16) throw new WasmHeapError(bytes);
      const offset = malloc(bytes);
      if (offset === 0 && bytes > 0) throw new WasmHeapError(bytes);
      return offset;
    },
    { guarded: true as const },
  );
  module._malloc = guarded;
}

let generation = 0;

/** How many times resetWasmRuntime replaced the backend (a holder of tensors made before must reload). */
export function runtimeGeneration(): number {
  return generation;
}

/**
 * Whether the active wasm backend still computes: a small matmul and sum with a known answer. After a
 * corrupted heap this throws or answers wrong; true on any other backend.
 */
export function wasmRuntimeHealthy(): boolean {
  if (activeBackend !== 'wasm') return true;
  try {
    const value = tf.tidy(() => {
      const a = tf.fill([16, 16], 1);
      return tf.matMul(a, a).add(tf.scalar(1)).sum().dataSync()[0];
    });
    return value === 16 * 16 * 17;
  } catch {
    return false;
  }
}

/**
 * Replaces the wasm backend with a fresh module (a new, empty heap). Every tensor made before is lost:
 * callers reload their models (runtimeGeneration() tells them). A no-op when wasm is not active.
 */
export async function resetWasmRuntime(): Promise<void> {
  const next = initialisation.then(async () => {
    if (activeBackend !== 'wasm') return;
    const engine = tf.engine() as unknown as {
      registry: Record<string, unknown>;
      registryFactory: Record<
        string,
        { factory: () => tf.KernelBackend | Promise<tf.KernelBackend>; priority: number }
      >;
      backendName: string | null;
      backendInstance: unknown;
      pendingBackendInit: unknown;
    };
    const entry = engine.registryFactory.wasm;
    if (!entry) throw new Error('resetWasmRuntime: the wasm backend is not registered');
    try {
      tf.removeBackend('wasm');
    } catch {
      // The old module may be too broken to dispose: drop it by hand.
      delete engine.registry.wasm;
      delete engine.registryFactory.wasm;
      engine.backendName = null;
      engine.backendInstance = null;
      engine.pendingBackendInit = null;
    }
    tf.registerBackend('wasm', entry.factory, entry.priority);
    activeBackend = undefined;
    generation++;
    await switchBackend('wasm');
  });
  initialisation = next.catch(() => undefined);
  return next;
}

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
  if (backend === 'wasm') guardWasmHeap();
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
