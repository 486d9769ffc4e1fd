// Builds the native matmul addon (native/curricula_native.c, OpenBLAS) at `npm ci` / `npm install`: the
// root package's `install` script runs this file. It never fails the install: when the addon cannot be
// built or loaded (no C compiler, no libopenblas-dev, no Node headers) it writes one line saying why to
// native/build/status.txt and exits 0, and the policy runs on plain wasm (src/policy/native-kernels.ts
// prints that line as its warning).
//
// Nothing is downloaded: node-gyp is pointed at the headers of the running Node (npm's `nodedir`
// setting, or <prefix>/include/node next to the node binary, as Debian's nodejs installs them); where
// neither exists the build is skipped rather than letting node-gyp fetch headers.
//
// OpenBLAS itself: in a source checkout (`npm ci` run in the repository, not `npm install curricula` in
// another project), as root on Debian/Ubuntu, a missing libopenblas-dev is installed first with
// scripts/system-deps.sh (one line says so), so that `npm ci && npm start` on a bare machine runs on the
// native kernels. Anywhere else the status line gives the exact command to run.
//
// CURRICULA_NATIVE=0 skips the build; CURRICULA_SKIP_SYSTEM_DEPS=1 installs nothing.
// --if-needed (`npm test`'s pretest): do nothing when the addon is already built, and say nothing when
// OpenBLAS is still missing (system-deps.sh has just printed the command that installs it).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const nativeDir = path.dirname(fileURLToPath(import.meta.url));
const buildDir = path.join(nativeDir, 'build');
const statusFile = path.join(buildDir, 'status.txt');
const logFile = path.join(buildDir, 'build.log');
const addonFile = path.join(buildDir, 'Release', 'curricula_native.node');
const packageRoot = path.dirname(nativeDir);
const systemDeps = path.join(packageRoot, 'scripts', 'system-deps.sh');
const ifNeeded = process.argv.includes('--if-needed');
const openblasHint = 'install it with: sudo apt-get install -y libopenblas-dev && npm run build:native';

function finish(status, { quiet = false } = {}) {
  try {
    mkdirSync(buildDir, { recursive: true });
    writeFileSync(statusFile, `${status}\n`);
  } catch {
    // A read-only checkout: the runtime then reports the addon as missing, which is still true.
  }
  if (!quiet) console.log(`curricula native kernels: ${status}`);
  process.exit(0);
}

/** True when the last build succeeded and its addon is still there. */
function alreadyBuilt() {
  if (!existsSync(addonFile) || !existsSync(statusFile)) return false;
  return readFileSync(statusFile, 'utf8').startsWith('built');
}

/**
 * True when Debian's package manager says libopenblas-dev is absent. Elsewhere (no dpkg: another
 * distribution, OpenBLAS built by hand) the build itself finds out.
 */
function openblasPackageMissing() {
  // dpkg's state, not `dpkg -s`: a removed package can stay known in "config-files" state.
  // dpkg-query's own field syntax, not a JavaScript template.
  const statusFormat = '-f=$' + '{db:Status-Status}';
  const query = spawnSync('dpkg-query', ['-W', statusFormat, 'libopenblas-dev'], {
    encoding: 'utf8',
  });
  if (query.error) return false;
  return query.stdout !== 'installed';
}

/** `npm ci` in this repository (not this package installed as another project's dependency). */
function isSourceCheckout() {
  if (!existsSync(path.join(packageRoot, '.git')) || !existsSync(systemDeps)) return false;
  const invokedIn = process.env.INIT_CWD;
  if (!invokedIn) return true; // run by hand: `node native/build.mjs`, `npm run build:native`
  try {
    return realpathSync(invokedIn) === realpathSync(packageRoot);
  } catch {
    return false;
  }
}

/** Installs libopenblas-dev through scripts/system-deps.sh when that may and can be done here. */
function installOpenblas() {
  if (process.env.CURRICULA_SKIP_SYSTEM_DEPS === '1' || !isSourceCheckout()) return;
  if (typeof process.getuid === 'function' && process.getuid() !== 0) return;
  spawnSync('bash', [systemDeps, 'native'], { stdio: 'inherit', timeout: 600_000 });
}

/** node-gyp's entry point: npm's own copy (npm tells scripts where it is), else the one next to npm. */
function findNodeGyp() {
  const candidates = [];
  if (process.env.npm_config_node_gyp) candidates.push(process.env.npm_config_node_gyp);
  if (process.env.npm_execpath) {
    // npm_execpath is …/npm/bin/npm-cli.js
    candidates.push(
      path.join(
        path.dirname(process.env.npm_execpath),
        '..',
        'node_modules',
        'node-gyp',
        'bin',
        'node-gyp.js',
      ),
    );
  }
  const prefix = path.dirname(path.dirname(process.execPath));
  candidates.push(
    path.join(prefix, 'lib', 'node_modules', 'npm', 'node_modules', 'node-gyp', 'bin', 'node-gyp.js'),
  );
  try {
    candidates.push(createRequire(import.meta.url).resolve('node-gyp/bin/node-gyp.js'));
  } catch {
    // not a dependency of this project; the candidates above usually exist
  }
  return candidates.find((candidate) => existsSync(candidate));
}

/** A directory with include/node/node_api.h for the running Node, so that node-gyp downloads nothing. */
function findNodeDir() {
  const configured = process.env.npm_config_nodedir;
  if (configured && existsSync(path.join(configured, 'include', 'node', 'node_api.h'))) return configured;
  const prefix = path.dirname(path.dirname(process.execPath));
  if (existsSync(path.join(prefix, 'include', 'node', 'node_api.h'))) return prefix;
  return undefined;
}

/** The likeliest cause of a failed build, read from node-gyp's output. */
function diagnose(log) {
  if (/cannot find -lopenblas|openblas.*No such file|cblas\.h: No such file/i.test(log))
    return `libopenblas not found; ${openblasHint}`;
  if (
    /(cc|gcc|g\+\+|make): (command )?not found|\b(cc|gcc|g\+\+): No such file|not found: make|Can't find Python|Could not find any Python/i.test(
      log,
    )
  )
    return 'no C toolchain (needs a C compiler, make and python3 for node-gyp)';
  const line = log.split('\n').find((text) => /error/i.test(text) && !/^gyp info/.test(text));
  return line ? line.trim().slice(0, 200) : 'node-gyp failed';
}

function main() {
  if (process.env.CURRICULA_NATIVE === '0') finish('not built: CURRICULA_NATIVE=0 at install');
  if (ifNeeded && alreadyBuilt()) process.exit(0);
  if (openblasPackageMissing()) {
    installOpenblas();
    if (openblasPackageMissing())
      finish(`not built: libopenblas not found; ${openblasHint}`, { quiet: ifNeeded });
  }
  const nodeGyp = findNodeGyp();
  if (!nodeGyp) finish('not built: node-gyp not found (it ships with npm)');
  const nodeDir = findNodeDir();
  if (!nodeDir) finish(`not built: no Node headers (include/node/node_api.h) for ${process.execPath}`);
  rmSync(addonFile, { force: true });
  mkdirSync(buildDir, { recursive: true });
  const build = spawnSync(process.execPath, [nodeGyp, 'rebuild', `--nodedir=${nodeDir}`], {
    cwd: nativeDir,
    encoding: 'utf8',
    timeout: 300_000,
    env: { ...process.env, npm_config_nodedir: nodeDir },
  });
  const log = `${build.stdout ?? ''}${build.stderr ?? ''}${build.error ? String(build.error) : ''}`;
  // node-gyp rebuild clears build/, so the log is written afterwards.
  mkdirSync(buildDir, { recursive: true });
  writeFileSync(logFile, log);
  if (build.status !== 0 || !existsSync(addonFile))
    finish(`not built: ${diagnose(log)} (log: native/build/build.log)`);
  // Load it in a child process: a missing shared library must not take this script down with it.
  const probe = spawnSync(
    process.execPath,
    [
      '-e',
      `const m = require(${JSON.stringify(addonFile)});
       const heap = new Uint8Array(64), f = new Float32Array(heap.buffer);
       f.set([1, 2, 3, 4, 5, 6, 7, 8]);
       m.matmul(heap, false, true, 2, 2, 2, 1, 0, 0, 16, 0, 32, -1, 0, 0);
       if (f.slice(8, 12).join() !== '17,23,39,53') throw new Error('wrong product ' + f.slice(8, 12).join());
       console.log(m.blasConfig());`,
    ],
    { encoding: 'utf8', timeout: 60_000 },
  );
  if (probe.status !== 0) {
    const reason = (probe.stderr || String(probe.error)).split('\n').find((line) => /Error/.test(line));
    rmSync(addonFile, { force: true });
    finish(`not built: the addon does not load (${(reason ?? 'unknown').trim().slice(0, 200)})`);
  }
  // The probe loads OpenBLAS with the CPU's own kernels; runs pin Haswell's on x86-64 with AVX2
  // (src/policy/blas-core.ts), which nativeKernelStatus().blas reports.
  finish(
    `built (${probe.stdout.trim()}; runs load the Haswell kernels on x86-64 with AVX2 unless CURRICULA_BLAS_CORE=auto: src/policy/blas-core.ts)`,
  );
}

try {
  main();
} catch (error) {
  finish(`not built: ${error instanceof Error ? error.message : String(error)}`);
}
