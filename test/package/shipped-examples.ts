// The shipped library examples built as a user builds them (a check of install.test.ts, which packs and
// installs the package once): examples/library/*.ts, copied from the installed package into the fresh
// project with the dependencies their package.json declares (zod at the package's own version), type-check
// under the tsconfig.json that the project's own `tsc --init` writes (strict, noUncheckedIndexedAccess,
// exactOptionalPropertyTypes, verbatimModuleSyntax, …) with `types: ["node"]` and `skipLibCheck: false`,
// so every shipped .d.ts they reach is checked too; no tsconfig of the repository ships with them.
import type { SpawnSyncReturns } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';

interface Manifest {
  dependencies: Record<string, string>;
}

const readManifest = (path: string) => JSON.parse(readFileSync(path, 'utf8')) as Manifest;

/** What the examples declare they need besides curricula (zod for their option schemas), as `name@version`. */
export function examplesDependencies(repo: string): string[] {
  return Object.entries(readManifest(join(repo, 'examples/library/package.json')).dependencies)
    .filter(([name]) => name !== 'curricula')
    .map(([name, version]) => `${name}@${version}`);
}

export interface ShippedExamplesCheck {
  repo: string;
  /** The fresh project that installed the tarball, typescript, @types/node and examplesDependencies. */
  project: string;
  /** The installed package, <project>/node_modules/curricula. */
  installed: string;
  run: (command: string, args: string[], options: { cwd: string }) => SpawnSyncReturns<string>;
  ok: (result: SpawnSyncReturns<string>, what: string) => string;
}

export function checkShippedExamples({ repo, project, installed, run, ok }: ShippedExamplesCheck): void {
  const shipped = join(installed, 'examples/library');
  const files = readdirSync(shipped).sort();
  // No tsconfig of the repository's ships (the one there extends a file the package does not hold).
  expect(files).toEqual([
    'cancel-resume.ts',
    'custom-algorithms.ts',
    'package.json',
    'plugins.ts',
    'train-script.ts',
  ]);
  // The examples declare their dependencies; zod is the package's own version, so one copy serves both.
  const examples = readManifest(join(repo, 'examples/library/package.json'));
  expect(examples.dependencies.zod).toBe(readManifest(join(repo, 'package.json')).dependencies.zod);
  expect(readFileSync(join(shipped, 'package.json'), 'utf8')).toBe(
    readFileSync(join(repo, 'examples/library/package.json'), 'utf8'),
  );
  expect(Object.keys(readManifest(join(project, 'package.json')).dependencies)).toEqual(
    expect.arrayContaining(Object.keys(examples.dependencies)),
  );

  const dir = join(project, 'library-examples');
  mkdirSync(dir);
  for (const file of files.filter((name) => name.endsWith('.ts')))
    copyFileSync(join(shipped, file), join(dir, file));
  const tsc = join(project, 'node_modules/typescript/bin/tsc');
  ok(run(process.execPath, [tsc, '--init'], { cwd: dir }), 'tsc --init');
  renameSync(join(dir, 'tsconfig.json'), join(dir, 'tsconfig.init.json'));
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      extends: './tsconfig.init.json',
      // `types: []` of tsc --init admits no @types package; the examples use Node's `process`.
      compilerOptions: { types: ['node'], skipLibCheck: false, noEmit: true },
      include: ['*.ts'],
    }),
  );
  const shown = JSON.parse(
    ok(run(process.execPath, [tsc, '--showConfig'], { cwd: dir }), 'tsc --showConfig'),
  );
  expect(shown.compilerOptions).toMatchObject({
    strict: true,
    noUncheckedIndexedAccess: true,
    exactOptionalPropertyTypes: true,
    verbatimModuleSyntax: true,
    module: 'nodenext',
    skipLibCheck: false,
  });

  const compiled = run(process.execPath, [tsc, '-p', '.', '--listFiles'], { cwd: dir });
  const listed = ok(compiled, 'tsc on the library examples').split('\n').filter(Boolean);
  // The checked .d.ts include the ones that once named better-sqlite3's types, whose @types package (a
  // devDependency of the repository) a user does not have (TS7016 with skipLibCheck off).
  expect(listed).toEqual(
    expect.arrayContaining([
      join(installed, 'dist/runs/sample-columns.d.ts'),
      join(installed, 'dist/runs/run-database.d.ts'),
      join(project, 'node_modules/zod/index.d.cts'),
    ]),
  );
  expect(existsSync(join(project, 'node_modules/@types/better-sqlite3'))).toBe(false);
  expect(listed.filter((file) => !file.startsWith(project))).toEqual([]);
}
