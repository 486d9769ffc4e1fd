// The native engine as the default of new runs (issue 29): what pinWorkerCount stores, and the fallback to
// tfjs where the addon cannot run (CURRICULA_NATIVE=0 stands in for a machine without it).
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../core/errors.ts';
import { defaultEngine } from './default-engine.ts';
import { nativeModelAvailable } from './native-model.ts';
import { engineChoice, pinWorkerCount } from './parallel-options.ts';

const root = path.resolve(import.meta.dirname, '..', '..');

describe('the default engine of a new run', () => {
  it('is stored by name: native with its threads, or the engine the config names', () => {
    expect(pinWorkerCount({ policy: { workers: 2 } }, 'native').policy).toEqual({
      workers: 2,
      engine: 'native',
      threads: expect.any(Number),
    });
    expect(pinWorkerCount({ policy: { workers: 2, engine: 'tfjs' } }, 'native').policy).toEqual({
      workers: 2,
      engine: 'tfjs',
    });
    expect(pinWorkerCount({ policy: { workers: 1 } }, 'tfjs').policy).toEqual({ workers: 1, engine: 'tfjs' });
    // no default given (a remote backend): nothing is pinned
    expect(pinWorkerCount({ policy: { workers: 1 } }).policy).toEqual({ workers: 1 });
    expect(() => pinWorkerCount({ policy: { workers: 1, threads: 2 } }, 'tfjs')).toThrow(ConfigError);
  });

  it('a stored config without engine (a run made before the default changed) stays on tfjs', () => {
    expect(engineChoice({ workers: 1 }).engine).toBeUndefined();
  });

  it('is native where the addon has the model and the decoder, tfjs with the reason where not', () => {
    expect(defaultEngine().engine).toBe(nativeModelAvailable() ? 'native' : 'tfjs');
    const script = `import { defaultEngine } from './src/policy/default-engine.ts';
      console.log(JSON.stringify(defaultEngine()));`;
    const run = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: root,
      encoding: 'utf8',
      env: { ...process.env, CURRICULA_NATIVE: '0' },
    });
    expect(run.status).toBe(0);
    const fallback = JSON.parse(run.stdout.trim().split('\n').at(-1) ?? '{}');
    expect(fallback.engine).toBe('tfjs');
    expect(fallback.fallback).toMatch(/CURRICULA_NATIVE=0/);
  });

  it('CURRICULA_ENGINE picks the default; a bad value is refused with the valid ones', () => {
    expect(defaultEngine({ CURRICULA_ENGINE: 'tfjs' })).toEqual({
      engine: 'tfjs',
      fallback: 'CURRICULA_ENGINE=tfjs',
    });
    expect(defaultEngine({ CURRICULA_ENGINE: 'native' }).engine).toBe(
      nativeModelAvailable() ? 'native' : 'tfjs',
    );
    expect(defaultEngine({}).engine).toBe(defaultEngine({ CURRICULA_ENGINE: 'native' }).engine);
    expect(() => defaultEngine({ CURRICULA_ENGINE: 'cuda' })).toThrow(
      /CURRICULA_ENGINE must be tfjs or native, got 'cuda'/,
    );
  });
});
