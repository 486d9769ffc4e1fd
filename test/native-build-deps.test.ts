// native/build.mjs (the `npm ci` install script) on a machine without libopenblas-dev: in a source
// checkout, as root, it installs it through scripts/system-deps.sh before building; installed as another
// project's dependency, or with CURRICULA_SKIP_SYSTEM_DEPS=1, it installs nothing; either way a build
// that still lacks OpenBLAS ends with one status line that gives the exact command. The script runs from
// a copy in a temporary checkout (so that the repository's own native/build is untouched), with fake
// dpkg-query and apt-get on PATH that report the package missing and log what they were asked.
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from './helpers.ts';

const isRoot = process.getuid?.() === 0;

function fakeCheckout(): { root: string; bin: string; aptLog: string } {
  const root = mkdtempSync(join(tmpdir(), 'native-build-deps-'));
  for (const dir of ['native', 'scripts', '.git', 'bin']) mkdirSync(join(root, dir));
  copyFileSync(join(repoRoot, 'native/build.mjs'), join(root, 'native/build.mjs'));
  copyFileSync(join(repoRoot, 'scripts/system-deps.sh'), join(root, 'scripts/system-deps.sh'));
  const bin = join(root, 'bin');
  const aptLog = join(root, 'apt.log');
  const script = (name: string, body: string) => {
    writeFileSync(join(bin, name), `#!/bin/sh\n${body}\n`);
    chmodSync(join(bin, name), 0o755);
  };
  script('dpkg-query', 'exit 1'); // "no packages found matching libopenblas-dev"
  script('apt-get', `echo "$@" >> ${aptLog}`);
  return { root, bin, aptLog };
}

function build(root: string, bin: string, env: Record<string, string>) {
  const { CURRICULA_SKIP_SYSTEM_DEPS: _skip, CURRICULA_NATIVE: _native, ...inherited } = process.env;
  return spawnSync(process.execPath, [join(root, 'native/build.mjs')], {
    encoding: 'utf8',
    cwd: root,
    env: { ...inherited, PATH: `${bin}:${process.env.PATH}`, ...env },
  });
}

const hint = 'install it with: sudo apt-get install -y libopenblas-dev && npm run build:native';

describe('native/build.mjs without libopenblas-dev', () => {
  const asRoot = isRoot ? '' : ' (skipped: not running as root)';
  it.skipIf(!isRoot)(
    `in a source checkout, as root, installs it with apt-get before building${asRoot}`,
    () => {
      const { root, bin, aptLog } = fakeCheckout();
      const result = build(root, bin, { INIT_CWD: root });
      expect(result.status).toBe(0);
      expect(result.stderr).toMatch(/installing Debian packages the native kernels need: libopenblas-dev/);
      expect(readFileSync(aptLog, 'utf8').trim().split('\n')).toEqual([
        'update -qq',
        'install -y -qq libopenblas-dev',
      ]);
      // The fake dpkg-query still says missing, so the build stops with the command to run.
      expect(result.stdout.trim()).toBe(
        `curricula native kernels: not built: libopenblas not found; ${hint}`,
      );
      expect(readFileSync(join(root, 'native/build/status.txt'), 'utf8')).toMatch(/^not built: libopenblas/);
    },
  );

  it('installed as another project’s dependency, installs nothing and gives the command', () => {
    const { root, bin, aptLog } = fakeCheckout();
    const result = build(root, bin, { INIT_CWD: tmpdir() });
    expect(result.status).toBe(0);
    expect(existsSync(aptLog)).toBe(false);
    expect(result.stdout.trim()).toBe(`curricula native kernels: not built: libopenblas not found; ${hint}`);
  });

  it('CURRICULA_SKIP_SYSTEM_DEPS=1 installs nothing', () => {
    const { root, bin, aptLog } = fakeCheckout();
    const result = build(root, bin, { INIT_CWD: root, CURRICULA_SKIP_SYSTEM_DEPS: '1' });
    expect(result.status).toBe(0);
    expect(existsSync(aptLog)).toBe(false);
    expect(result.stdout).toMatch(/not built: libopenblas not found/);
  });

  it('--if-needed says nothing when OpenBLAS is still missing (system-deps.sh has given the command)', () => {
    const { root, bin } = fakeCheckout();
    const result = spawnSync(process.execPath, [join(root, 'native/build.mjs'), '--if-needed'], {
      encoding: 'utf8',
      cwd: root,
      env: { ...process.env, PATH: `${bin}:${process.env.PATH}`, CURRICULA_SKIP_SYSTEM_DEPS: '1' },
    });
    expect(result.status).toBe(0);
    expect(result.stdout).toBe('');
    expect(readFileSync(join(root, 'native/build/status.txt'), 'utf8')).toMatch(/^not built: libopenblas/);
  });
});
