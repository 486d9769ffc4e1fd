// bin/curricula.mjs picks what to run: the compiled CLI (dist/) when it was built from the sources as they
// are now, the sources through tsx when they changed since (in a source checkout), and always dist/ in an
// installed package (no scripts/source-fingerprint.mjs there). Checked on a small fake checkout whose two
// `main` functions say which one ran: the real bin and fingerprint script, copied; tsx from this repo.
import { spawnSync } from 'node:child_process';
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const repo = resolve(import.meta.dirname, '../..');

let checkout: string;

async function writeBuildInfo(): Promise<void> {
  const { sourceFingerprint } = (await import(join(checkout, 'scripts/source-fingerprint.mjs'))) as {
    sourceFingerprint: (root: string) => string;
  };
  writeFileSync(
    join(checkout, 'dist/build-info.json'),
    JSON.stringify({ fingerprint: sourceFingerprint(checkout) }),
  );
}

function which(env: Record<string, string> = {}): string {
  const result = spawnSync(process.execPath, [join(checkout, 'bin/curricula.mjs')], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '', ...env },
  });
  expect(result.stderr).toBe('');
  return result.stdout.trim();
}

beforeEach(async () => {
  checkout = mkdtempSync(join(tmpdir(), 'curricula-bin-'));
  for (const dir of ['bin', 'scripts', 'src/cli', 'dist/cli'])
    mkdirSync(join(checkout, dir), { recursive: true });
  copyFileSync(join(repo, 'bin/curricula.mjs'), join(checkout, 'bin/curricula.mjs'));
  copyFileSync(
    join(repo, 'scripts/source-fingerprint.mjs'),
    join(checkout, 'scripts/source-fingerprint.mjs'),
  );
  symlinkSync(join(repo, 'node_modules'), join(checkout, 'node_modules'));
  writeFileSync(join(checkout, 'package.json'), '{"type":"module"}');
  writeFileSync(join(checkout, 'tsconfig.json'), '{}');
  writeFileSync(join(checkout, 'tsconfig.build.json'), '{}');
  const main = (name: string) => `export async function main() { console.log('${name}'); }\n`;
  writeFileSync(join(checkout, 'src/cli/main.ts'), `${main('source')}const typed: string = '';\n`);
  writeFileSync(join(checkout, 'src/cli/main.test.ts'), '');
  writeFileSync(join(checkout, 'dist/cli/main.js'), main('dist'));
  await writeBuildInfo();
});

afterEach(() => {
  rmSync(checkout, { recursive: true, force: true });
});

describe('bin/curricula.mjs', () => {
  it('runs dist/ when it was built from the current sources', () => {
    expect(which()).toBe('dist');
  });

  it('runs the sources through tsx once a source is edited, added or deleted, or no build is recorded', async () => {
    const later = new Date(Date.now() + 5_000);
    utimesSync(join(checkout, 'src/cli/main.ts'), later, later);
    expect(which()).toBe('source');

    await writeBuildInfo();
    expect(which()).toBe('dist');
    writeFileSync(join(checkout, 'src/cli/new.ts'), '');
    expect(which()).toBe('source');

    await writeBuildInfo();
    rmSync(join(checkout, 'src/cli/new.ts'));
    expect(which()).toBe('source');

    await writeBuildInfo();
    writeFileSync(join(checkout, 'tsconfig.build.json'), '{"compilerOptions":{}}');
    expect(which()).toBe('source');

    rmSync(join(checkout, 'dist/build-info.json'));
    expect(which()).toBe('source');
  });

  it('ignores test files, and CURRICULA_FROM_SOURCE=1 forces the sources', () => {
    writeFileSync(join(checkout, 'src/cli/main.test.ts'), 'changed');
    expect(which()).toBe('dist');
    expect(which({ CURRICULA_FROM_SOURCE: '1' })).toBe('source');
  });

  it('says to build when the sources changed and tsx is not installed', () => {
    rmSync(join(checkout, 'node_modules'));
    writeFileSync(join(checkout, 'src/cli/new.ts'), '');
    const result = spawnSync(process.execPath, [join(checkout, 'bin/curricula.mjs')], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '' },
    });
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(
      /^error: the sources changed since dist\/ was built .*run `npm run build`\n$/,
    );
  });

  it('always runs dist/ in an installed package (no fingerprint script there)', () => {
    rmSync(join(checkout, 'scripts'), { recursive: true });
    writeFileSync(join(checkout, 'src/cli/new.ts'), '');
    expect(which()).toBe('dist');
  });
});
