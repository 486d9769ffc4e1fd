// scripts/system-deps.sh (run by `npm test` and .ci/run): on a machine missing a package it installs it as
// root and prints one line with the exact command otherwise. Driven with fake dpkg / id / apt-get on PATH
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
  script('dpkg', `case " ${missing.join(' ')} " in *" $2 "*) exit 1 ;; esac; exit 0`);
  script('id', `echo ${uid}`);
  script('apt-get', `echo "$@" >> ${aptLog}`);
  return { dir, aptLog };
}

function run(dir: string, env: Record<string, string> = {}) {
  return spawnSync('bash', [join(repoRoot, 'scripts/system-deps.sh')], {
    encoding: 'utf8',
    env: { ...process.env, PATH: `${dir}:${process.env.PATH}`, ...env },
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

  it('as another user, prints the exact command in one line and fails without installing', () => {
    const { dir, aptLog } = fakeBin(1000, ['bubblewrap']);
    const result = run(dir);
    expect(result.status).toBe(1);
    expect(result.stderr.trim().split('\n')).toEqual([
      'curricula: the tests need Debian packages that are missing; install them with: sudo apt-get install -y bubblewrap',
    ]);
    expect(() => readFileSync(aptLog)).toThrow();
  });

  it('CURRICULA_SKIP_SYSTEM_DEPS=1 skips the check', () => {
    const { dir } = fakeBin(1000, ['bubblewrap']);
    expect(run(dir, { CURRICULA_SKIP_SYSTEM_DEPS: '1' }).status).toBe(0);
  });
});
