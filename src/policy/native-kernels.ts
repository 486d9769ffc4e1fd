// Native kernels for the wasm backend: loads the N-API addon (native/curricula_native.c, built at `npm ci`
// by native/build.mjs) once per process, says what runs, and registers the addon's kernels over the wasm
// ones: BatchMatMul, _FusedMatMul and the leading-axes Sum on OpenBLAS (native-matmul.ts), the
// elementwise ones (native-elementwise.ts), the fused ones (native-fused.ts) and the sampler
// (sampler-native.ts).
//
// The kernels replace the wasm ones registered before them (runtime.ts's patched BatchMatMul and the
// stock _FusedMatMul, …) and fall back to those for what they do not handle (for matmul: non-float32
// dtypes, the prelu activation, a bias that is not a vector of length n).
//
// Where the addon is missing or does not load, wasm runs as before and one warning line says why: one
// per process, also with N policy worker threads (each replica keeps its line for the main thread, which
// prints replica 0's; printNativeWarning drops a repeat).
// Environment: CURRICULA_NATIVE=0 forces wasm; CURRICULA_BLAS_THREADS (default 1) sets OpenBLAS's
// threads per process (issue 10 measured no gain from two BLAS threads in one process);
// CURRICULA_BLAS_CORE=auto lets OpenBLAS pick the CPU's own kernels (default on x86-64 with AVX2: its
// Haswell kernels everywhere, so results do not depend on the machine: blas-core.ts).
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { UserError } from '../core/errors.ts';
import { cpuFlags, pinnedBlasCore } from './blas-core.ts';
import { installElementwiseKernels } from './native-elementwise.ts';
import { type FusedAddon, installFusedKernels } from './native-fused.ts';
import { type MatMulAddon, nativeMatMul, nativeSum } from './native-matmul.ts';
import { installSamplerKernels, type SamplerAddon } from './sampler-native.ts';
import { replaceKernel } from './wasm-kernels.ts';

export { broadcastIndices, nativeMatMulCount, nativeSumCount } from './native-matmul.ts';

/** The addon's exports (native/curricula_native.c documents the arguments). */
interface NativeAddon extends MatMulAddon {
  setThreads(threads: number): void;
  getThreads(): number;
  blasConfig(): string;
}

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

let addon: NativeAddon | undefined;
let loadAttempted = false;
let status: NativeKernelStatus = { active: false, reason: 'not initialised', threads: null, blas: null };
let enabled = true;
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
  // OpenBLAS sizes its thread pool from OPENBLAS_NUM_THREADS and picks its kernels (OPENBLAS_CORETYPE,
  // blas-core.ts) when it loads: set both for the load only, so that child processes (the PyTorch
  // baseline of `bench policy`) do not inherit them.
  const inherited = process.env.OPENBLAS_NUM_THREADS;
  if (inherited === undefined) process.env.OPENBLAS_NUM_THREADS = String(threads);
  const core = pinnedBlasCore(env, process.arch, cpuFlags());
  if (core !== undefined) process.env.OPENBLAS_CORETYPE = core;
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
    if (core !== undefined) delete process.env.OPENBLAS_CORETYPE;
  }
}

/**
 * Loads the addon in this thread before policy workers start (parallel-backend.ts): OpenBLAS reads its
 * environment (threads, core type: blas-core.ts) when the process first loads it, and a worker thread's
 * process.env is its own copy, which OpenBLAS does not see. Nothing is registered.
 */
export function preloadNativeAddon(): void {
  loadAddon();
}

/**
 * The addon's exports as this thread loaded them (once per process, native-kernels' own load), for the
 * entry points other files read (native-model.ts, native-decoder.ts); undefined when it did not load.
 */
export function loadedNativeAddon(): Readonly<Record<string, unknown>> | undefined {
  loadAddon();
  return addon as Readonly<Record<string, unknown>> | undefined;
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
