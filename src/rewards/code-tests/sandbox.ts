// Runs one untrusted program inside bubblewrap and reports what happened (exit, signal, output, time).
//
// Design (measured in reference/verifiers-and-ml.md §2.3, after the graders of LiveCodeBench, Code-R1's
// firejail executor and SandboxFusion): one fresh sandbox per test run.
// - bwrap is spawned as an unprivileged uid (65534 when we are root) so that RLIMIT_NPROC is enforced
//   (the kernel ignores it for root) and nothing inside can signal or read our processes;
// - bwrap starts with an empty environment (its pid 1 inside keeps the environment it was started with,
//   readable at /proc/1/environ) and only the descriptors it needs (descriptors.ts);
// - `--unshare-all` (no network, own pid/ipc/uts/cgroup namespaces), `--disable-userns` (no nested user
//   namespaces), a seccomp filter (seccomp.ts: no file locks, memfd, sockets, SysV IPC, namespaces,
//   ptrace, …), `--die-with-parent`, `--new-session`, `--clearenv`; only /usr is bound (read-only) plus
//   /bin, /lib, /lib64 symlinks; fresh /proc (its host-wide counters hidden: procMasks) and /dev;
//   size-capped tmpfs at /work (the working
//   directory), /tmp and /dev/shm; the program and the harness come in through pipes (`--ro-bind-data`),
//   so no host file is shared and the expected outputs never enter the sandbox: only stdin does;
// - inside, `prlimit` sets CPU seconds, address space (python) or data segment (node: V8 crashes at start
//   under RLIMIT_AS, so node gets `--max-old-space-size` plus RLIMIT_DATA, which only counts memory it
//   actually commits), processes, file size and open files;
// - outside, a wall-clock timer, an output cap and a memory watchdog (rlimits are per process, so every
//   100 ms the resident memory of the whole process tree is summed from /proc) SIGKILL the whole process
//   group; the timer and the watchdog run in a supervisor thread (supervisor.ts), so a busy main thread
//   cannot freeze them. bwrap runs the program
//   as pid 1 of a private pid namespace; when that init dies, the kernel kills everything left in the
//   namespace, so no background process survives a run.
//
// If bubblewrap is missing or cannot create namespaces, `probeSandbox` (probe.ts) says why and the reward
// refuses to run any code: there is deliberately no unsandboxed fallback.
//
// Residual risks (docs/rewards/code-tests.md, threat model): kernel bugs in allowed syscalls; memory the
// watchdog cannot see (tmpfs contents and inodes, pipe buffers, between two polls); timing and
// shared-resource channels between concurrent sandboxes (reward.ts runs one answer's tests one after
// another, so these are between different answers).
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import type { Writable } from 'node:stream';
import { spawnStdio } from './descriptors.ts';
import { identity, staticProcStat, systemBinds } from './host-binds.ts';
import { seccompFilter } from './seccomp.ts';
import { CappedStream, fallbackGraceMs, superviseRun, watchdogSlackMb } from './supervisor.ts';

export type Language = 'python' | 'javascript';

export interface SandboxLimits {
  /** Wall-clock limit per run in milliseconds; the process group is SIGKILLed when it passes. */
  timeoutMs: number;
  /**
   * Memory limit in MiB: RLIMIT_AS for python; V8 old space and RLIMIT_DATA (+256 MiB) for node; and the
   * whole sandbox's resident memory may not pass memoryMb + 128 MiB (the watchdog).
   */
  memoryMb: number;
  /** RLIMIT_NPROC: processes and threads of the sandbox user. */
  maxProcesses: number;
  /** Largest stdout (and, separately, stderr) in bytes before the run is killed. */
  maxOutputBytes: number;
  /** RLIMIT_FSIZE: largest file the program may write, in bytes. */
  maxFileBytes: number;
  /** Size of each tmpfs (/work, /tmp, /dev/shm) in bytes. */
  tmpfsBytes: number;
}

export interface SandboxConfig {
  bwrapPath: string;
  pythonPath: string;
  nodePath: string;
  prlimitPath: string;
}

export interface SandboxFile {
  /** Path inside the sandbox, e.g. /sandbox/solution.py (read-only there). */
  path: string;
  content: string;
}

export interface SandboxRun {
  language: Language;
  files: SandboxFile[];
  /** The file to execute (one of `files`). */
  entry: string;
  stdin: string;
  limits: SandboxLimits;
}

export interface SandboxOutcome {
  exitCode: number | null;
  /** Signal that ended bwrap (ours: SIGKILL on timeout or output cap). */
  signal: NodeJS.Signals | null;
  stdout: string;
  /** The first 64 KiB of stderr. */
  stderr: string;
  wallMs: number;
  timedOut: boolean;
  /** Which stream went past maxOutputBytes, if any. */
  outputExceeded: 'stdout' | 'stderr' | null;
  /** The watchdog killed the run: the sandbox's processes together held more than this many MiB. */
  memoryExceededMb: number | null;
  /** Milliseconds from the start to the supervisor's SIGKILL (time or memory), when it sent one. */
  killedAfterMs?: number | null;
}

const stderrKeepBytes = 64 * 1024;

function interpreterCommand(language: Language, entry: string, config: SandboxConfig, limits: SandboxLimits) {
  const mib = 1024 * 1024;
  const cpuSeconds = Math.max(1, Math.ceil(limits.timeoutMs / 1000));
  const common = [
    config.prlimitPath,
    // soft:hard — SIGXCPU at the soft limit, SIGKILL one second later
    `--cpu=${cpuSeconds}:${cpuSeconds + 1}`,
    `--nproc=${limits.maxProcesses}`,
    `--fsize=${limits.maxFileBytes}`,
    '--nofile=128',
    '--core=0',
  ];
  if (language === 'python') {
    return [...common, `--as=${limits.memoryMb * mib}`, '--', config.pythonPath, '-I', '-B', entry];
  }
  return [
    ...common,
    `--data=${(limits.memoryMb + 256) * mib}`,
    '--',
    config.nodePath,
    `--max-old-space-size=${limits.memoryMb}`,
    entry,
  ];
}

// bwrap gets exactly this environment: nothing of the trainer's (its pid 1 inside the sandbox keeps it).
export const bwrapEnvironment: NodeJS.ProcessEnv = Object.freeze({});

// Host-wide counters in /proc, hidden: one test could move them (threads, forks, page cache, disk reads,
// interrupts, pressure stalls, the decaying load average that outlives the test by minutes) and the next
// read them. Files read as empty (the host's /dev/null bound over them; a bind without device access would
// make them unreadable instead), except /proc/stat, which keeps its cpu lines with every counter 0
// (staticProcStat: node's os.cpus() reads it); directories become empty read-only tmpfs mounts. Python
// and node start without them (getloadavg fails; os.totalmem() is 0). sysinfo(2), which carries the
// same numbers, is denied in seccomp.ts.
const hiddenProcFiles = [
  'loadavg',
  'stat',
  'uptime',
  'meminfo',
  'vmstat',
  'zoneinfo',
  'buddyinfo',
  'pagetypeinfo',
  'diskstats',
  'interrupts',
  'softirqs',
  'locks',
  'key-users',
  'cgroups',
  'swaps',
];
const hiddenProcDirectories = ['sys', 'pressure', 'irq'];
let presentProcEntries: { files: string[]; directories: string[] } | undefined;

/**
 * The bwrap arguments that hide them; only entries this kernel has (bwrap cannot create one in /proc).
 * Built per call, so that a removed /proc/stat stand-in is written again.
 */
export function procMasks(): string[] {
  presentProcEntries ??= {
    files: hiddenProcFiles.filter((name) => existsSync(`/proc/${name}`)),
    directories: hiddenProcDirectories.filter((name) => existsSync(`/proc/${name}`)),
  };
  return [
    ...presentProcEntries.files.flatMap((name) => {
      const statFile = name === 'stat' ? staticProcStat() : null;
      return statFile ? ['--ro-bind', statFile, '/proc/stat'] : ['--dev-bind', '/dev/null', `/proc/${name}`];
    }),
    ...presentProcEntries.directories.flatMap((name) => [
      '--tmpfs',
      `/proc/${name}`,
      '--remount-ro',
      `/proc/${name}`,
    ]),
  ];
}

/** The descriptor on which bwrap reads the seccomp filter: the one after the program files. */
export const seccompDescriptor = (run: Pick<SandboxRun, 'files'>) => 3 + run.files.length;

/**
 * The full bwrap argument list; program files arrive on fds 3, 4, … in the order of `files`, the seccomp
 * filter on the next one.
 */
export function bwrapArgs(run: SandboxRun, config: SandboxConfig): string[] {
  const { limits } = run;
  const args = [
    '--unshare-all',
    // --unshare-all only tries the user namespace; --disable-userns needs it for sure.
    '--unshare-user',
    '--disable-userns',
    '--seccomp',
    String(seccompDescriptor(run)),
    '--die-with-parent',
    '--new-session',
    '--clearenv',
    '--setenv',
    'PATH',
    '/usr/bin:/bin',
    '--setenv',
    'HOME',
    '/work',
    '--setenv',
    'LANG',
    'C.UTF-8',
    '--setenv',
    'PYTHONIOENCODING',
    'utf-8',
    '--setenv',
    'OPENBLAS_NUM_THREADS',
    '1',
    '--setenv',
    'OMP_NUM_THREADS',
    '1',
    '--hostname',
    'sandbox',
    ...systemBinds(),
    '--proc',
    '/proc',
    '--dev',
    '/dev',
    ...procMasks(),
    '--size',
    String(limits.tmpfsBytes),
    '--tmpfs',
    '/dev/shm',
    '--size',
    String(limits.tmpfsBytes),
    '--tmpfs',
    '/tmp',
    '--size',
    String(limits.tmpfsBytes),
    '--tmpfs',
    '/work',
    '--chdir',
    '/work',
  ];
  run.files.forEach((file, index) => {
    args.push('--perms', '0444', '--ro-bind-data', String(3 + index), file.path);
  });
  // Remount / read-only last, so that nothing outside the tmpfs mounts is writable.
  args.push('--remount-ro', '/');
  args.push(...interpreterCommand(run.language, run.entry, config, limits));
  return args;
}

/** Runs one program in a fresh sandbox. Never rejects for anything the program does. */
export function runInSandbox(run: SandboxRun, config: SandboxConfig): Promise<SandboxOutcome> {
  const { limits } = run;
  const started = performance.now();
  // stdin, stdout, stderr, the program files, the seccomp filter; /dev/null over inherited descriptors.
  const stdio = spawnStdio(seccompDescriptor(run) + 1);
  return new Promise((resolve) => {
    // detached: bwrap leads a new process group, so one kill(-pid) reaches bwrap and anything it started.
    const child = spawn(config.bwrapPath, bwrapArgs(run, config), {
      ...identity(),
      env: bwrapEnvironment,
      detached: true,
      stdio,
    });
    // The wall clock and the memory watchdog: the supervisor thread kills the group (supervisor.ts). Told
    // before this thread can reap bwrap, i.e. before it returns to its event loop.
    const watch =
      child.pid === undefined
        ? null
        : superviseRun(
            child.pid,
            {
              timeoutMs: limits.timeoutMs,
              memoryLimitBytes: (limits.memoryMb + watchdogSlackMb) * 1024 * 1024,
            },
            performance.timeOrigin + started,
          );
    // Caps on what is kept of the output, before anything parses it.
    const stdout = new CappedStream(limits.maxOutputBytes);
    const stderr = new CappedStream(limits.maxOutputBytes, stderrKeepBytes);
    let fallbackTimedOut = false;
    let outputExceeded: SandboxOutcome['outputExceeded'] = null;
    let settled = false;
    let exited = false;

    // Only while bwrap has not been reaped: afterwards its pid (= the group id) may belong to someone else.
    const killGroup = () => {
      if (exited || child.pid === undefined) return;
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    };
    // Only a backup, should the supervisor not be running.
    const timer = setTimeout(() => {
      fallbackTimedOut = true;
      killGroup();
    }, limits.timeoutMs + fallbackGraceMs);

    child.stdout!.on('data', (chunk: Buffer) => {
      if (stdout.add(chunk)) return;
      outputExceeded ??= 'stdout';
      killGroup();
    });
    child.stderr!.on('data', (chunk: Buffer) => {
      if (stderr.add(chunk)) return;
      outputExceeded ??= 'stderr';
      killGroup();
    });

    // The program may exit without reading its input or files (EPIPE): that is its business, not an error.
    const feed = (stream: Writable | null | undefined, data: string | Buffer) => {
      if (!stream) return;
      stream.on('error', () => {});
      stream.end(data);
    };
    run.files.forEach((file, index) => {
      feed(child.stdio[3 + index] as Writable, file.content);
    });
    feed(child.stdio[seccompDescriptor(run)] as Writable, seccompFilter());
    feed(child.stdin, run.stdin);

    const finish = (exitCode: number | null, signal: NodeJS.Signals | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      watch?.reaped();
      resolve({
        exitCode,
        signal,
        stdout: stdout.text(),
        stderr: stderr.text(),
        wallMs: performance.now() - started,
        timedOut: fallbackTimedOut || (watch?.timedOut ?? false),
        outputExceeded,
        memoryExceededMb: watch?.memoryExceeded ? limits.memoryMb + watchdogSlackMb : null,
        killedAfterMs: watch?.killedAfterMs ?? null,
      });
    };
    child.on('error', (error) => {
      stderr.add(Buffer.from(`sandbox failed to start: ${error.message}`));
      finish(null, null);
    });
    child.on('exit', () => {
      exited = true;
      watch?.reaped();
    });
    child.on('close', finish);
  });
}
