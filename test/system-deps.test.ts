// scripts/system-deps.sh (run by `npm test`, and by native/build.mjs at `npm ci` for OpenBLAS): on a machine
// missing a package it installs it as root; otherwise it prints one line with the exact command and lets the
// tests skip (exit 0), or fails under CURRICULA_STRICT_DEPS=1. Driven with fake dpkg-query / id / apt-get on PATH
// (the real ones would change this machine), so the script's own logic is what runs.
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from './helpers.ts';

function fakeBin(uid: number, missing: string[]): { dir: string; aptLog: string } {
  const dir = mkdtempSync(join(tmpdir(), 'system-deps-'));
  const aptLog = join(dir, 'apt.log');
  const script = (name: string, body: string) => {
    writeFileSync(join(dir, name), `#!/bin/sh\n${body}\n`);
    chmodSync(join(dir, name), 0o755);
  };
  // A missing package is in "config-files" state, as `apt-get remove` leaves chromium: known to dpkg
  // (`dpkg -s` succeeds on it) but not installed.
  script(
    'dpkg-query',
    `case " ${missing.join(' ')} " in *" $3 "*) printf config-files; exit 0 ;; esac; printf installed`,
  );
  script('id', `echo ${uid}`);
  script('apt-get', `echo "$@" >> ${aptLog}`);
  return { dir, aptLog };
}

function run(dir: string, env: Record<string, string> = {}, args: string[] = []) {
  const { CURRICULA_STRICT_DEPS: _strict, CURRICULA_SKIP_SYSTEM_DEPS: _skip, ...inherited } = process.env;
  return spawnSync('bash', [join(repoRoot, 'scripts/system-deps.sh'), ...args], {
    encoding: 'utf8',
    env: { ...inherited, PATH: `${dir}:${process.env.PATH}`, ...env },
  });
}

describe('scripts/system-deps.sh', () => {
  it('does nothing when every package is present', () => {
    const { dir, aptLog } = fakeBin(0, []);
    const result = run(dir);
    expect(result.status).toBe(0);
    expect(result.stderr).toBe('');
    expect(() => readFileSync(aptLog)).toThrow();
  });

  it('as root, installs exactly the missing packages with apt-get', () => {
    const { dir, aptLog } = fakeBin(0, ['chromium', 'bubblewrap']);
    const result = run(dir);
    expect(result.status).toBe(0);
    expect(result.stderr).toMatch(/installing Debian packages the tests need: bubblewrap chromium/);
    const calls = readFileSync(aptLog, 'utf8').trim().split('\n');
    expect(calls).toEqual(['update -qq', 'install -y -qq bubblewrap chromium']);
  });

  it('as another user, prints the exact command in one line and goes on without installing', () => {
    const { dir, aptLog } = fakeBin(1000, ['bubblewrap']);
    const result = run(dir);
    expect(result.status).toBe(0);
    expect(result.stderr.trim().split('\n')).toEqual([
      'curricula: Debian packages the tests need are missing; install them with: sudo apt-get install -y bubblewrap',
    ]);
    expect(() => readFileSync(aptLog)).toThrow();
  });

  it('when OpenBLAS is among the missing, the command also rebuilds the addon', () => {
    const { dir } = fakeBin(1000, ['libopenblas-dev', 'chromium']);
    expect(run(dir).stderr.trim()).toBe(
      'curricula: Debian packages the tests need are missing; install them with: sudo apt-get install -y libopenblas-dev chromium && npm run build:native',
    );
  });

  it('under CURRICULA_STRICT_DEPS=1 a package it cannot install is an error', () => {
    const { dir } = fakeBin(1000, ['bubblewrap']);
    const result = run(dir, { CURRICULA_STRICT_DEPS: '1' });
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/sudo apt-get install -y bubblewrap/);
  });

  it('as root, a failed apt-get is one line with the command, not a failed install', () => {
    const { dir } = fakeBin(0, ['bubblewrap']);
    writeFileSync(join(dir, 'apt-get'), '#!/bin/sh\necho "E: Unable to locate package" >&2; exit 100\n');
    const result = run(dir);
    expect(result.status).toBe(0);
    expect(result.stderr.trim().split('\n').at(-1)).toBe(
      'curricula: apt-get could not install bubblewrap; install them with: apt-get install -y bubblewrap',
    );
  });

  it('the native profile installs only OpenBLAS, and an unknown profile is a usage error', () => {
    const { dir, aptLog } = fakeBin(0, ['libopenblas-dev', 'chromium', 'bubblewrap']);
    const result = run(dir, {}, ['native']);
    expect(result.status).toBe(0);
    expect(result.stderr).toMatch(/installing Debian packages the native kernels need: libopenblas-dev$/m);
    expect(readFileSync(aptLog, 'utf8').trim().split('\n')).toEqual([
      'update -qq',
      'install -y -qq libopenblas-dev',
    ]);
    expect(run(dir, {}, ['everything']).status).toBe(2);
  });

  it('CURRICULA_SKIP_SYSTEM_DEPS=1 skips the check', () => {
    const { dir } = fakeBin(1000, ['bubblewrap']);
    expect(run(dir, { CURRICULA_SKIP_SYSTEM_DEPS: '1' }).status).toBe(0);
  });
});
