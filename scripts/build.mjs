// Builds the compiled package in dist/ (what bin/curricula.mjs and the package's `exports` load):
//   1. tsc -p tsconfig.build.json: src/ → dist/ as ES modules with .d.ts, declaration maps and source maps
//      (incremental: dist/.tsbuildinfo; a no-change rebuild takes seconds). The sources import with `.ts`
//      extensions; rewriteRelativeImportExtensions (TypeScript ≥ 5.7) rewrites them to `.js`.
//   2. copies the non-TypeScript files the code reads next to itself: the dashboard's web page
//      (src/dashboard/web → dist/dashboard/web, static-files.ts).
//   3. deletes outputs whose source is no longer compiled (tsc never does), checks that no test support
//      was compiled (a product module importing it drags it in past tsconfig.build.json's `exclude`), writes
//      dist/build-info.json with the source fingerprint (source-fingerprint.mjs) taken *before* compiling,
//      so a file edited during the build marks the build stale.
// Why tsc alone and not tsup/tsdown: nothing needs bundling (Node resolves the dependencies at run time,
// and workers, the dashboard's page and the native addon are found by paths relative to their own module,
// which a bundle would have to special-case), tsc is already the type checker and emits the .d.ts files
// and maps itself, and tsdown's current releases (0.22 and newer) want Node 22 while we support Node 20.
// Run by `npm run build`, `prepare` (so `npm ci` and `npm pack` build) and the out-of-repo test.
import { spawnSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sourceFingerprint } from './source-fingerprint.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = path.join(root, 'dist');
const buildInfo = path.join(dist, 'build-info.json');
/** Copied verbatim: [from under src/, to under dist/]. */
const assets = [['dashboard/web', 'dashboard/web']];
/** Test support or a hand-run bench script (src/testing/, src/bench/scripts/, or a name that says so). */
const testSupport =
  /^(testing|bench\/scripts)\/|(\.test(-helper|-worker|-child)?|test-[a-z-]+|-helpers|fault-proxy|cases)\.ts$/;

function fail(message) {
  console.error(`build: ${message}`);
  process.exit(1);
}

rmSync(buildInfo, { force: true });
const fingerprint = sourceFingerprint(root);
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const compiled = spawnSync(process.execPath, [tsc, '-p', path.join(root, 'tsconfig.build.json')], {
  stdio: 'inherit',
});
if (compiled.status !== 0) fail(`tsc exited with ${compiled.status ?? compiled.signal}`);

// Synced rather than replaced: tests may run the compiled CLI (the dashboard serves these files) while a
// test's `npm pack` rebuilds, so an unchanged file is never rewritten and none is missing for a moment.
for (const [from, to] of assets) {
  const source = path.join(root, 'src', from);
  const target = path.join(dist, to);
  const names = new Set(readdirSync(source, { recursive: true }).map(String));
  for (const name of names) {
    const file = path.join(source, name);
    if (!statSync(file).isFile()) continue;
    const copy = path.join(target, name);
    if (existsSync(copy) && readFileSync(copy).equals(readFileSync(file))) continue;
    mkdirSync(path.dirname(copy), { recursive: true });
    cpSync(file, copy);
  }
  if (existsSync(target)) {
    for (const name of readdirSync(target, { recursive: true }).map(String)) {
      if (!names.has(name)) rmSync(path.join(target, name), { recursive: true, force: true });
    }
  }
}

// The program's source files, as tsc recorded them (paths relative to dist/): an output with no source
// among them is left over from an earlier build (a deleted or newly excluded file) and is removed.
const program = new Set(
  JSON.parse(readFileSync(path.join(dist, '.tsbuildinfo'), 'utf8'))
    .fileNames.filter((name) => name.startsWith('../src/'))
    .map((name) => name.slice('../src/'.length).replace(/\.ts$/, '')),
);
if (program.size === 0) fail('dist/.tsbuildinfo lists no source file (has its format changed?)');
for (const source of program) {
  if (testSupport.test(`${source}.ts`))
    fail(`test support src/${source}.ts was compiled; check its importers`);
}
const assetDirs = assets.map(([, to]) => `${to}/`);
for (const entry of readdirSync(dist, { recursive: true, withFileTypes: true })) {
  if (!entry.isFile()) continue;
  const relative = path.relative(dist, path.join(entry.parentPath, entry.name)).split(path.sep).join('/');
  if (assetDirs.some((dir) => relative.startsWith(dir))) continue;
  const output = relative.match(/^(.*)\.(js|js\.map|d\.ts|d\.ts\.map)$/);
  if (output && !program.has(output[1])) rmSync(path.join(dist, relative));
}

writeFileSync(buildInfo, `${JSON.stringify({ fingerprint }, null, 2)}\n`);
