// Checks that the code-tests sandbox can run here before any code is run: bubblewrap and prlimit exist, bwrap
// can create its namespaces as the sandbox user and install the seccomp filter (probeSandbox, synchronous,
// so that a reward refuses at construction), and each interpreter starts inside it (probeInterpreter).
// There is deliberately no unsandboxed fallback: when a probe fails, the reward refuses to run code.
// Residual risk: a probe proves the sandbox starts, not that it confines; hostile-*.test.ts check that.
import { type SpawnSyncReturns, spawnSync } from 'node:child_process';
import {
  accessSync,
  closeSync,
  constants as fsConstants,
  mkdtempSync,
  openSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UserError } from '../../core/errors.ts';
import { spawnStdio } from './descriptors.ts';
import { identity } from './host-binds.ts';
import {
  bwrapArgs,
  bwrapEnvironment,
  type Language,
  runInSandbox,
  type SandboxConfig,
  type SandboxLimits,
  seccompDescriptor,
} from './sandbox.ts';
import { seccompFilter } from './seccomp.ts';

/** The sandbox cannot run here; the message says why and what to do. Never falls back to running unsandboxed. */
export class SandboxUnavailableError extends UserError {
  override name = 'SandboxUnavailableError';
}

export interface ProbeResult {
  ok: boolean;
  /** Why the sandbox is unavailable and what to do (absent when ok). */
  reason?: string;
}

const probes = new Map<string, ProbeResult>();

function executable(path: string): boolean {
  try {
    accessSync(path, fsConstants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * Checks once per configuration (cached) that bwrap exists and can create its namespaces as the sandbox
 * user, by running `true` inside exactly the sandbox the programs get. Synchronous so that a reward can
 * refuse at construction.
 */
export function probeSandbox(config: SandboxConfig): ProbeResult {
  const key = JSON.stringify(config);
  const cached = probes.get(key);
  if (cached) return cached;
  const result = probeUncached(config);
  probes.set(key, result);
  return result;
}

function probeUncached(config: SandboxConfig): ProbeResult {
  const install = 'install it (Debian/Ubuntu: apt-get install -y bubblewrap)';
  if (!executable(config.bwrapPath)) {
    return { ok: false, reason: `bubblewrap not found at ${config.bwrapPath}: ${install}` };
  }
  if (!executable(config.prlimitPath)) {
    return { ok: false, reason: `prlimit not found at ${config.prlimitPath}: install util-linux` };
  }
  const limits: SandboxLimits = {
    timeoutMs: 10_000,
    memoryMb: 256,
    maxProcesses: 16,
    maxOutputBytes: 4096,
    maxFileBytes: 4096,
    tmpfsBytes: 1024 * 1024,
  };
  let filter: Buffer;
  try {
    filter = seccompFilter();
  } catch (error) {
    return { ok: false, reason: (error as Error).message };
  }
  const run = { language: 'python' as const, files: [], entry: '', stdin: '', limits };
  const args = bwrapArgs(run, config);
  // Replace the interpreter with `true`: the probe checks namespaces, mounts and the filter, not python.
  const cut = args.indexOf(config.prlimitPath);
  const probeArgs = [...args.slice(0, cut), '/usr/bin/true'];
  // spawnSync feeds only stdin, so the filter comes from a file opened on its descriptor.
  const directory = mkdtempSync(join(tmpdir(), 'code-tests-probe-'));
  let result: SpawnSyncReturns<string>;
  try {
    writeFileSync(join(directory, 'filter'), filter);
    const filterFd = openSync(join(directory, 'filter'), 'r');
    try {
      const stdio = spawnStdio(seccompDescriptor(run) + 1);
      stdio[seccompDescriptor(run)] = filterFd;
      result = spawnSync(config.bwrapPath, probeArgs, {
        ...identity(),
        env: bwrapEnvironment,
        stdio,
        timeout: 10_000,
        encoding: 'utf8',
      });
    } finally {
      closeSync(filterFd);
    }
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
  if (result.error || result.status !== 0) {
    const detail =
      (result.error?.message ?? result.stderr ?? '').trim().split('\n').pop() || `exit ${result.status}`;
    if (/Unknown option|--disable-userns/.test(detail)) {
      return {
        ok: false,
        reason: `bubblewrap at ${config.bwrapPath} is too old (${detail}): the sandbox needs bubblewrap ≥ 0.8 (--disable-userns); ${install}`,
      };
    }
    return {
      ok: false,
      reason:
        `bubblewrap cannot create an unprivileged sandbox here (${detail}); enable unprivileged user ` +
        'namespaces (sysctl kernel.unprivileged_userns_clone=1; on Ubuntu 24.04 also ' +
        'kernel.apparmor_restrict_unprivileged_userns=0) or run in a container that allows them',
    };
  }
  return { ok: true };
}

/** Throws SandboxUnavailableError unless the sandbox works (probed once, cached). */
export function assertSandbox(config: SandboxConfig): void {
  const probe = probeSandbox(config);
  if (!probe.ok) throw new SandboxUnavailableError(`code-tests: refusing to run code: ${probe.reason}`);
}

/** Checks that an interpreter starts inside the sandbox (cached per config and language). */
const interpreterProbes = new Map<string, Promise<ProbeResult>>();

export function probeInterpreter(language: Language, config: SandboxConfig): Promise<ProbeResult> {
  const key = `${language}\0${JSON.stringify(config)}`;
  let probe = interpreterProbes.get(key);
  if (!probe) {
    const limits: SandboxLimits = {
      timeoutMs: 15_000,
      memoryMb: 512,
      maxProcesses: 64,
      maxOutputBytes: 4096,
      maxFileBytes: 4096,
      tmpfsBytes: 1024 * 1024,
    };
    const path = language === 'python' ? '/sandbox/probe.py' : '/sandbox/probe.js';
    const content = language === 'python' ? 'print("ok")' : 'console.log("ok")';
    const interpreter = language === 'python' ? config.pythonPath : config.nodePath;
    probe = runInSandbox(
      { language, files: [{ path, content }], entry: path, stdin: '', limits },
      config,
    ).then((outcome) =>
      outcome.exitCode === 0 && outcome.stdout.trim() === 'ok'
        ? { ok: true }
        : {
            ok: false,
            reason:
              `${language} interpreter ${interpreter} does not start inside the sandbox ` +
              `(${outcome.stderr.trim().split('\n').pop() || `exit ${outcome.exitCode}`}); it must live under /usr ` +
              '(set the pythonPath/nodePath option)',
          },
    );
    interpreterProbes.set(key, probe);
    // Only success is cached: a probe that failed under a transient overload is retried on next use.
    probe.then((result) => {
      if (!result.ok) interpreterProbes.delete(key);
    });
  }
  return probe;
}
