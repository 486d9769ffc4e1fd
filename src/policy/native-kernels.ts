// Native kernels for the wasm backend: BatchMatMul and _FusedMatMul run OpenBLAS's cblas_sgemm
// (native/curricula_native.c, an N-API addon built at `npm ci` by native/build.mjs) in place on the
// wasm heap. The operands already live in the WebAssembly memory; the addon reads them at their heap
// offsets and writes the output that we allocated there with backend.makeOutput, so nothing is copied.
// Transposes are BLAS flags, broadcast batch dimensions are a stride of 0 (or one call per batch entry
// in the general case). Issue 10's probe measured the base train step 2.3× faster this way (matmul
// 235 → 63 ms per step).
//
// Sum over the leading axes (the bias gradient of each linear layer; the stock kernel transposes the whole
// input first) is a plain C loop over the rows, also in place.
//
// The kernels replace the wasm ones registered before them (runtime.ts's patched BatchMatMul and the
// stock _FusedMatMul) and fall back to those for what they do not handle: non-float32 dtypes, the prelu
// activation, a bias that is not a vector of length n.
//
// Where the addon is missing or does not load, wasm runs as before and one warning line says why: one
// per process, also with N policy worker threads (each replica keeps its line for the main thread, which
// prints replica 0's; printNativeWarning drops a repeat).
// Environment: CURRICULA_NATIVE=0 forces wasm; CURRICULA_BLAS_THREADS (default 1) sets OpenBLAS's
// threads per process (issue 10 measured no gain from two BLAS threads in one process).
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as tf from '@tensorflow/tfjs';
import { UserError } from '../core/errors.ts';
import { installElementwiseKernels } from './native-elementwise.ts';
import { type FusedAddon, installFusedKernels } from './native-fused.ts';
import { installSamplerKernels, type SamplerAddon } from './sampler-native.ts';
import { type KernelArgs, replaceKernel, type WasmBackend } from './wasm-kernels.ts';

/** The addon's exports (native/curricula_native.c documents the arguments). */
interface NativeAddon {
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
  setThreads(threads: number): void;
  getThreads(): number;
  blasConfig(): string;
}

type HeapBackend = WasmBackend & { wasm: { HEAPU8: Uint8Array } };

export interface NativeKernelStatus {
  /** True when BatchMatMul and _FusedMatMul run on OpenBLAS. */
  active: boolean;
  /** Why not, or what runs: one line. */
  reason: string;
  /** OpenBLAS threads per process, or null when inactive. */
  threads: number | null;
  /** OpenBLAS's build string, or null when inactive. */
  blas: string | null;
}

const nativeDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'native');
export const nativeAddonPath = path.join(nativeDir, 'build', 'Release', 'curricula_native.node');

/** tfjs-backend-wasm's FusableActivation numbers; prelu (3) stays with the stock kernel. */
const activationCodes: Record<string, number> = {
  linear: 0,
  relu: 1,
  relu6: 2,
  leakyrelu: 4,
  sigmoid: 5,
  elu: 6,
};

let addon: NativeAddon | undefined;
let loadAttempted = false;
let status: NativeKernelStatus = { active: false, reason: 'not initialised', threads: null, blas: null };
let enabled = true;
let nativeCalls = 0;
let nativeSumCalls = 0;
let warning: string | undefined;
let relayWarning = false;
const printedWarnings = new Set<string>();

/** In a policy replica thread: keep the fallback warning for the main thread instead of printing it. */
export function relayNativeWarning(): void {
  relayWarning = true;
}

/** This thread's fallback warning line (undefined when the addon loaded, is off, or was not tried). */
export function nativeKernelWarning(): string | undefined {
  return warning;
}

/** Prints a fallback warning line on stderr, once per thread (a relayed repeat of it is dropped). */
export function printNativeWarning(line: string): void {
  if (printedWarnings.has(line)) return;
  printedWarnings.add(line);
  console.warn(line);
}

/** What the matmul kernels run on: for `bench policy` and logs. */
export function nativeKernelStatus(): NativeKernelStatus {
  if (status.active && !enabled)
    return { ...status, active: false, reason: 'turned off by setNativeKernels' };
  return { ...status };
}

/** Whether the addon is loaded (independently of setNativeKernels). */
export function nativeKernelsAvailable(): boolean {
  return addon !== undefined;
}

/** Turns the native path on or off (when off, the wasm kernels run); for tests and benchmarks. */
export function setNativeKernels(on: boolean): void {
  enabled = on;
}

/** How many matmuls ran natively (lets tests check that the native path is reached). */
export function nativeMatMulCount(): number {
  return nativeCalls;
}

/** How many Sums ran natively. */
export function nativeSumCount(): number {
  return nativeSumCalls;
}

/** OpenBLAS threads of this process. */
export function setNativeThreads(threads: number): void {
  if (!addon) return;
  addon.setThreads(threads);
  status = { ...status, threads: addon.getThreads() };
}

function threadsFromEnvironment(env: NodeJS.ProcessEnv): number {
  const text = env.CURRICULA_BLAS_THREADS;
  if (text === undefined || text === '') return 1;
  const threads = Number(text);
  if (!Number.isInteger(threads) || threads < 1 || threads > 1024)
    throw new UserError(`CURRICULA_BLAS_THREADS='${text}' is not a thread count; use an integer ≥ 1`);
  return threads;
}

/**
 * Opens the addon at `addonPath` as the environment asks (CURRICULA_NATIVE, CURRICULA_BLAS_THREADS) and
 * says what runs; `warning` is the line to print when the addon was wanted but is unusable.
 */
export function openNativeAddon(
  env: NodeJS.ProcessEnv,
  addonPath: string,
): { addon?: NativeAddon; status: NativeKernelStatus; warning?: string } {
  const inactive = (reason: string) => ({ active: false, reason, threads: null, blas: null });
  const setting = env.CURRICULA_NATIVE;
  if (setting === '0' || setting === 'false' || setting === 'off')
    return { status: inactive('off (CURRICULA_NATIVE=0): wasm matmul') };
  const threads = threadsFromEnvironment(env);
  const unusable = (why: string) => {
    const reason = `native kernels unavailable, wasm matmul in use: ${why}`;
    return { status: inactive(reason), warning: `curricula: ${reason}` };
  };
  if (!existsSync(addonPath)) {
    const statusFile = path.join(path.dirname(path.dirname(addonPath)), 'status.txt');
    return unusable(
      existsSync(statusFile)
        ? `addon ${readFileSync(statusFile, 'utf8').trim()}`
        : `no addon at ${addonPath} (run \`npm run build:native\`; needs a C compiler and libopenblas-dev)`,
    );
  }
  // OpenBLAS sizes its thread pool from OPENBLAS_NUM_THREADS when it loads: set it for the load only, so
  // that child processes (the PyTorch baseline of `bench policy`) do not inherit it.
  const inherited = process.env.OPENBLAS_NUM_THREADS;
  if (inherited === undefined) process.env.OPENBLAS_NUM_THREADS = String(threads);
  try {
    const loaded = createRequire(import.meta.url)(addonPath) as NativeAddon;
    loaded.setThreads(threads);
    return {
      addon: loaded,
      status: {
        active: true,
        reason: 'OpenBLAS sgemm and C Sum on the wasm heap',
        threads: loaded.getThreads(),
        blas: loaded.blasConfig(),
      },
    };
  } catch (error) {
    // One line, all of it: Node's ABI-mismatch message puts the reason after its first line break.
    const message = (error instanceof Error ? error.message : String(error)).replace(/\s*\n\s*/g, ' ');
    return unusable(`the addon does not load (${message})`);
  } finally {
    if (inherited === undefined) delete process.env.OPENBLAS_NUM_THREADS;
  }
}

/** Loads the addon once per process (CURRICULA_NATIVE_ADDON overrides its path, for tests). */
function loadAddon(): void {
  if (loadAttempted) return;
  loadAttempted = true;
  const opened = openNativeAddon(process.env, process.env.CURRICULA_NATIVE_ADDON || nativeAddonPath);
  addon = opened.addon;
  status = opened.status;
  warning = opened.warning;
  if (warning && !relayWarning) printNativeWarning(warning);
}

/**
 * Registers the native BatchMatMul and _FusedMatMul over the current wasm ones, if the addon loads.
 * Call after the wasm backend is initialised and its other kernel fixes are registered.
 */
export function installNativeKernels(): void {
  loadAddon();
  const native = addon;
  if (!native) return;
  for (const name of ['BatchMatMul', '_FusedMatMul'])
    replaceKernel(
      name,
      (stock) => (args) => (enabled && nativeMatMul(native, args)) || stock.kernelFunc(args as never),
    );
  replaceKernel(
    'Sum',
    (stock) => (args) => (enabled && nativeSum(native, args)) || stock.kernelFunc(args as never),
  );
  installElementwiseKernels(native, () => enabled);
  installFusedKernels(native as unknown as FusedAddon, () => enabled);
  installSamplerKernels(native as unknown as SamplerAddon, () => enabled);
}

/**
 * tf.sum of float32 x over its leading axes [0, r) with r < rank (the case where the stock kernel
 * transposes); undefined for every other case.
 */
function nativeSum(native: NativeAddon, { inputs, backend, attrs }: KernelArgs): tf.TensorInfo | undefined {
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

/** The native product, or undefined for the cases left to the wasm kernel. */
function nativeMatMul(
  native: NativeAddon,
  { inputs, backend, attrs }: KernelArgs,
): tf.TensorInfo | undefined {
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

  const wasmBackend = backend as unknown as HeapBackend;
  const out = wasmBackend.makeOutput([...batchShape, m, n], 'float32');
  // Only now take the heap: makeOutput may have grown the wasm memory and replaced its buffer.
  const heap = wasmBackend.wasm.HEAPU8;
  const offsetOf = (tensor: tf.TensorInfo) => wasmBackend.dataIdMap.get(tensor.dataId).memoryOffset;
  const aOffset = offsetOf(a);
  const bOffset = offsetOf(b);
  const outOffset = offsetOf(out);
  const biasOffset = bias ? offsetOf(bias) : -1;
  const alpha = (attrs.leakyreluAlpha as number | undefined) || 0;
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
      aOffset,
      aStride,
      bOffset,
      bStride,
      outOffset,
      biasOffset,
      activation,
      alpha,
    );
  } else {
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
        aOffset + 4 * aIndices[i] * aSize,
        0,
        bOffset + 4 * bIndices[i] * bSize,
        0,
        outOffset + 4 * i * m * n,
        biasOffset,
        activation,
        alpha,
      );
    }
  }
  nativeCalls++;
  return out;
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
