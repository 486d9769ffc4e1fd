// Issue 10's reliability promise for the native addon: "an addon built against a different Node ABI or a
// missing libopenblas falls back to wasm with one line saying why". Each case runs a real process with
// CURRICULA_NATIVE_ADDON pointing at a broken addon, computes a matmul, and must get the wasm result and
// exactly one stderr line naming the cause:
// - a shared library the addon needs is gone (as when libopenblas is uninstalled): an addon linked
//   against a dummy libcurricula_missing.so that is then deleted, so dlopen fails;
// - an addon from another Node ABI: a shared object that registers itself with NODE_MODULE_VERSION 42;
// - files that are not addons: text, and a shared object that registers nothing;
// - the same with 2 policy worker threads, each of which loads the addon: still one line.
// The shared objects are compiled here with `cc`; without a C compiler those cases are skipped.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '..', '..');
const directory = mkdtempSync(path.join(tmpdir(), 'curricula-native-fallback-'));
const hasCompiler = spawnSync('cc', ['--version'], { encoding: 'utf8' }).status === 0;

afterAll(() => rmSync(directory, { recursive: true, force: true }));

/** Compiles C `source` into a shared object `name` in the temp directory, with extra linker arguments. */
function compile(name: string, source: string, args: string[] = []): string {
  const file = path.join(directory, `${name}.c`);
  writeFileSync(file, source);
  const output = path.join(directory, name);
  const result = spawnSync('cc', ['-shared', '-fPIC', '-o', output, file, ...args], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`cc ${name}: ${result.stderr}`);
  return output;
}

const matmulScript = `
  import { initRuntime, tf } from './src/policy/runtime.ts';
  import { nativeKernelStatus } from './src/policy/native-kernels.ts';
  await initRuntime('wasm');
  const product = tf.matMul(tf.tensor2d([1, 2, 3, 4], [2, 2]), tf.tensor2d([5, 6, 7, 8], [2, 2]), false, true);
  console.log(JSON.stringify({ values: Array.from(product.dataSync()), active: nativeKernelStatus().active }));`;

/** 2 policy workers (each loads the addon) and a forward pass through them. */
const workersScript = `
  import { ParallelEmbeddedBackend } from './src/policy/parallel-backend.ts';
  import { stubTokenizer } from './src/testing/policy/test-helpers.ts';
  const backend = await ParallelEmbeddedBackend.create(
    { vocabSize: 12, dModel: 16, layers: 2, heads: 2, contextLength: 16 }, stubTokenizer(12), 1, {
      workers: 2, onWarning: () => {},
      tokenizerFactory: { module: new URL('./src/testing/policy/test-helpers.ts', 'file://${root}/').href, exportName: 'stubTokenizerFromJSON' } });
  const logprobs = await backend.forward([[1, 3, 4], [1, 5, 6]]);
  await backend.close();
  console.log(JSON.stringify({ sequences: logprobs.length }));`;

/** Runs `script` in a fresh process whose addon is `addon`; returns its stdout JSON and stderr lines. */
function run(addon: string, script = matmulScript) {
  const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: root,
    encoding: 'utf8',
    env: { PATH: process.env.PATH, HOME: process.env.HOME, CURRICULA_NATIVE_ADDON: addon },
    timeout: 90_000,
  });
  expect(child.status, child.stderr).toBe(0);
  return {
    output: JSON.parse(child.stdout),
    lines: child.stderr.split('\n').filter((line) => line.trim() !== ''),
  };
}

const prefix = 'curricula: native kernels unavailable, wasm matmul in use: the addon does not load';
const wasmResult = { values: [17, 23, 39, 53], active: false };

/** An addon that needs libcurricula_missing.so, which is deleted after linking. */
function addonWithMissingLibrary(): string {
  const library = compile('libcurricula_missing.so', 'int curricula_missing(void) { return 1; }\n');
  const addon = compile(
    'needs-missing.node',
    'extern int curricula_missing(void);\nint use_it(void) { return curricula_missing(); }\n',
    [`-L${directory}`, '-lcurricula_missing', '-Wl,--no-as-needed'],
  );
  rmSync(library);
  return addon;
}

describe('a broken native addon falls back to wasm with one line saying why', () => {
  it.skipIf(!hasCompiler)('a library the addon links is missing (as a missing libopenblas)', () => {
    const { output, lines } = run(addonWithMissingLibrary());
    expect(output).toEqual(wasmResult);
    expect(lines).toEqual([
      `${prefix} (libcurricula_missing.so: cannot open shared object file: No such file or directory)`,
    ]);
  });

  it.skipIf(!hasCompiler)('an addon built for another Node ABI (NODE_MODULE_VERSION)', () => {
    // A module that registers itself the way pre-N-API addons do, claiming ABI 42.
    const addon = compile(
      'other-abi.node',
      `struct node_module {
         int nm_version; unsigned int nm_flags; void *nm_dso_handle; const char *nm_filename;
         void *nm_register_func; void *nm_context_register_func; const char *nm_modname;
         void *nm_priv; void *nm_link;
       };
       extern void node_module_register(void *module);
       static struct node_module module = { 42, 0, 0, "other-abi.c", 0, 0, "curricula_native", 0, 0 };
       __attribute__((constructor)) static void register_module(void) { node_module_register(&module); }
      `,
    );
    const { output, lines } = run(addon);
    expect(output).toEqual(wasmResult);
    // The whole message on one line: the reason comes after Node's first line break.
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`${prefix} (The module '${addon}' was compiled against a different`);
    expect(lines[0]).toContain(
      `NODE_MODULE_VERSION 42. This version of Node.js requires NODE_MODULE_VERSION ${process.versions.modules}.`,
    );
  });

  it('a file that is not a shared library', () => {
    const addon = path.join(directory, 'text.node');
    writeFileSync(
      addon,
      'not a shared library, long enough for the loader to read an ELF header\n'.repeat(4),
    );
    const { output, lines } = run(addon);
    expect(output).toEqual(wasmResult);
    expect(lines).toEqual([`${prefix} (${addon}: invalid ELF header)`]);
  });

  it.skipIf(!hasCompiler)('a shared library that is not an addon', () => {
    const addon = compile('plain.node', 'int nothing(void) { return 0; }\n');
    const { output, lines } = run(addon);
    expect(output).toEqual(wasmResult);
    expect(lines).toEqual([`${prefix} (Module did not self-register: '${addon}'.)`]);
  });

  it('one line, not one per worker, with 2 policy worker threads', () => {
    const { output, lines } = run('/nonexistent/curricula_native.node', workersScript);
    expect(output).toEqual({ sequences: 2 });
    expect(lines).toEqual([
      expect.stringMatching(/^curricula: native kernels unavailable, wasm matmul in use: no addon at /),
    ]);
  }, 90_000);
});
