// Loading the native addon (native-kernels.ts's openNativeAddon and the runtime's fallback): off without a
// warning under CURRICULA_NATIVE=0, one line saying why when the addon is missing or does not load, a bad
// CURRICULA_BLAS_THREADS refused, and a process without the addon running wasm with exactly one warning.
// These run whether or not the addon is built (the kernels themselves: native-kernels.test.ts,
// native-elementwise.test.ts).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { nativeAddonPath, openNativeAddon } from './native-kernels.ts';

describe('native addon loading', () => {
  it('is off without a warning when CURRICULA_NATIVE=0', () => {
    const opened = openNativeAddon({ CURRICULA_NATIVE: '0' }, nativeAddonPath);
    expect(opened.addon).toBeUndefined();
    expect(opened.warning).toBeUndefined();
    expect(opened.status.reason).toMatch(/CURRICULA_NATIVE=0/);
  });

  it('says why when the addon is missing or does not load', () => {
    const directory = mkdtempSync(path.join(tmpdir(), 'curricula-native-'));
    try {
      const missing = openNativeAddon({}, path.join(directory, 'Release', 'curricula_native.node'));
      expect(missing.addon).toBeUndefined();
      expect(missing.warning).toMatch(/wasm matmul in use: no addon at .*npm run build:native/);
      writeFileSync(path.join(directory, 'status.txt'), 'not built: libopenblas not found\n');
      expect(openNativeAddon({}, path.join(directory, 'Release', 'x.node')).warning).toMatch(
        /wasm matmul in use: addon not built: libopenblas not found$/,
      );
      const broken = path.join(directory, 'broken.node');
      writeFileSync(broken, 'not a shared library');
      expect(openNativeAddon({}, broken).warning).toMatch(/wasm matmul in use: the addon does not load \(/);
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });

  it('rejects a thread count that is not one', () => {
    expect(() => openNativeAddon({ CURRICULA_BLAS_THREADS: 'two' }, nativeAddonPath)).toThrow(
      /CURRICULA_BLAS_THREADS='two'/,
    );
  });

  it('falls back to wasm with one warning line in a process whose addon is missing', () => {
    const script = `
      import { initRuntime, tf } from './src/policy/runtime.ts';
      import { nativeKernelStatus } from './src/policy/native-kernels.ts';
      await initRuntime('wasm');
      const product = tf.matMul(tf.tensor2d([1, 2, 3, 4], [2, 2]), tf.tensor2d([5, 6, 7, 8], [2, 2]), false, true);
      console.log(JSON.stringify({ values: Array.from(product.dataSync()), active: nativeKernelStatus().active }));`;
    const root = path.resolve(import.meta.dirname, '..', '..');
    const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: root,
      encoding: 'utf8',
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        CURRICULA_NATIVE_ADDON: '/nonexistent/curricula_native.node',
      },
      timeout: 60_000,
    });
    expect(child.status, child.stderr).toBe(0);
    expect(JSON.parse(child.stdout)).toEqual({ values: [17, 23, 39, 53], active: false });
    const warnings = child.stderr.split('\n').filter((line) => line.trim() !== '');
    expect(warnings).toEqual([
      expect.stringMatching(/^curricula: native kernels unavailable, wasm matmul in use/),
    ]);
  });
});
