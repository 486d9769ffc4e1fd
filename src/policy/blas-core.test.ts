// OpenBLAS runs its Haswell kernels on every x86-64 machine with AVX2 and FMA (blas-core.ts), in this
// thread and in policy worker threads, unless the user chose otherwise.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { nativeKernels, requirement } from '../../test/requirements.ts';
import { cpuFlags, pinnedBlasCore, reproducibleBlasCore } from './blas-core.ts';
import { initRuntime } from './runtime.ts';

await initRuntime('wasm');

const avx2 = new Set(['sse2', 'avx', 'avx2', 'fma', 'avx512f']);

describe('which OpenBLAS kernels load', () => {
  it('Haswell on x86-64 with AVX2 and FMA; the user’s choice kept; nothing pinned elsewhere', () => {
    expect(pinnedBlasCore({}, 'x64', avx2)).toBe('Haswell');
    expect(pinnedBlasCore({ OPENBLAS_CORETYPE: 'SkylakeX' }, 'x64', avx2)).toBeUndefined();
    expect(pinnedBlasCore({ CURRICULA_BLAS_CORE: 'auto' }, 'x64', avx2)).toBeUndefined();
    expect(pinnedBlasCore({}, 'x64', new Set(['sse2', 'avx']))).toBeUndefined();
    expect(pinnedBlasCore({}, 'x64', null)).toBeUndefined();
    expect(pinnedBlasCore({}, 'arm64', avx2)).toBeUndefined();
  });

  const flags = cpuFlags();
  const pinnable = pinnedBlasCore({}, process.arch, flags) !== undefined;
  const native = nativeKernels();
  const need = native.skip
    ? native
    : requirement(pinnable, 'an x86-64 CPU with AVX2 and FMA', { optional: true });
  it.skipIf(need.skip)(`the main thread and a policy worker thread run it${need.label}`, () => {
    // A worker thread's process.env is its own copy: OpenBLAS sees the core type only when this thread
    // loads the addon first (preloadNativeAddon, as parallel-backend.ts does before starting replicas).
    const script = `
      import { Worker } from 'node:worker_threads';
      import { nativeAddonPath, nativeKernelStatus, preloadNativeAddon } from './src/policy/native-kernels.ts';
      preloadNativeAddon();
      const load = [
        "Promise.all([import('node:module'), import('node:worker_threads')]).then(([m, w]) =>",
        ' w.parentPort.postMessage(m.createRequire(w.workerData)(w.workerData).blasConfig()))',
      ].join('');
      const worker = new Worker(load, { eval: true, execArgv: [], workerData: nativeAddonPath });
      worker.on('message', (inWorker) => {
        console.log(JSON.stringify({ main: nativeKernelStatus().blas, inWorker, env: process.env.OPENBLAS_CORETYPE ?? null }));
        process.exit(0);
      });`;
    const root = path.resolve(import.meta.dirname, '..', '..');
    const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: root,
      encoding: 'utf8',
      env: { PATH: process.env.PATH, HOME: process.env.HOME },
      timeout: 60_000,
    });
    expect(child.status, child.stderr).toBe(0);
    const seen = JSON.parse(child.stdout) as { main: string; inWorker: string; env: string | null };
    expect(seen.main).toContain(` ${reproducibleBlasCore} `);
    expect(seen.inWorker).toContain(` ${reproducibleBlasCore} `);
    // Set for the load only: child processes (the PyTorch baseline) do not inherit it.
    expect(seen.env).toBeNull();
  });
});
