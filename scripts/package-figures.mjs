// The package figures of the README ("Use as a library"): packed and unpacked size (`npm pack --dry-run`),
// the time to install the tarball into a fresh project (`npm install <tgz> --prefer-offline --no-audit
// --no-fund --ignore-scripts`, npm's cache warm, as test/package/install.test.ts does), and the start-up
// of `curricula --help` run through tsx from the sources against the compiled dist/ (alternating, so both
// see the same load). Medians, with the load average before and after. Run after `npm run build`:
//
//   node scripts/package-figures.mjs [installRuns=3] [helpRuns=7] [--before <bin of the tsx version>]
//
// `--before` defaults to this checkout's bin with CURRICULA_FROM_SOURCE=1 (the sources through tsx).
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sourceFingerprint } from './source-fingerprint.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const beforeIndex = args.indexOf('--before');
const beforeBin = beforeIndex >= 0 ? args.splice(beforeIndex, 2)[1] : undefined;
const installRuns = Number(args[0] ?? 3);
const helpRuns = Number(args[1] ?? 7);

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};
const round = (value, digits = 2) => Number(value.toFixed(digits));

function timed(command, commandArgs, options) {
  const started = performance.now();
  const result = spawnSync(command, commandArgs, { encoding: 'utf8', ...options });
  if (result.status !== 0) throw new Error(`${command} ${commandArgs.join(' ')}: ${result.stderr}`);
  return { seconds: (performance.now() - started) / 1000, stdout: result.stdout };
}

const built = JSON.parse(readFileSync(path.join(root, 'dist/build-info.json'), 'utf8')).fingerprint;
if (built !== sourceFingerprint(root))
  throw new Error('dist/ is older than the sources: run `npm run build` first');

const loadBefore = loadavg().map((value) => round(value));
const temp = mkdtempSync(path.join(tmpdir(), 'curricula-figures-'));
try {
  const packed = JSON.parse(
    timed('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', temp], { cwd: root }).stdout,
  )[0];
  const tarball = path.join(temp, packed.filename);

  const installs = [];
  for (let i = 0; i < installRuns; i++) {
    const project = path.join(temp, `project-${i}`);
    mkdirSync(project);
    writeFileSync(
      path.join(project, 'package.json'),
      '{"name":"figures","version":"1.0.0","private":true,"type":"module"}',
    );
    installs.push(
      timed('npm', ['install', tarball, '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts'], {
        cwd: project,
      }).seconds,
    );
    rmSync(project, { recursive: true, force: true });
  }

  const bin = path.join(root, 'bin/curricula.mjs');
  const before = [];
  const after = [];
  for (let i = 0; i < helpRuns; i++) {
    before.push(
      timed(process.execPath, [beforeBin ?? bin, '--help'], {
        env: { ...process.env, CURRICULA_FROM_SOURCE: beforeBin ? undefined : '1' },
      }).seconds,
    );
    after.push(
      timed(process.execPath, [bin, '--help'], { env: { ...process.env, CURRICULA_FROM_SOURCE: '' } })
        .seconds,
    );
  }

  console.log(
    JSON.stringify(
      {
        packedMB: round(packed.size / 1e6),
        unpackedMB: round(packed.unpackedSize / 1e6),
        files: packed.entryCount,
        installSeconds: installs.length
          ? { median: round(median(installs), 1), runs: installs.map((value) => round(value, 1)) }
          : null,
        helpSeconds: {
          beforeTsx: { median: round(median(before)), runs: before.map((value) => round(value)) },
          afterDist: { median: round(median(after)), runs: after.map((value) => round(value)) },
        },
        loadAverage: { before: loadBefore, after: loadavg().map((value) => round(value)) },
        cores: availableParallelism(),
      },
      null,
      2,
    ),
  );
} finally {
  rmSync(temp, { recursive: true, force: true });
}
