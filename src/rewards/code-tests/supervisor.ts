// The limits enforced from outside a sandbox, where a busy grader cannot freeze them: the wall-clock timer
// and the memory watchdog run in one worker thread (the supervisor), which SIGKILLs a sandbox's process
// group itself; the output caps (below) apply to what the main thread reads, before anything parses it.
//
// Why a worker thread: the grader runs on the main thread's event loop, and while it was busy (a regular
// expression that backtracked for 62 s over one answer) the timers and the 100 ms watchdog of every other
// sandbox were frozen with it, so a neighbour held 1.5 GiB for 59 s instead of being killed at 384 MiB. A
// worker has its own event loop and its own thread: it polls /proc and kills on time whatever the main
// thread does. It costs one thread for the whole process and no process per run; a supervisor process per
// run (a shell watchdog, `timeout`) would add a fork and exec to every test and still need /proc polling
// for the memory of the whole tree, which rlimits (`prlimit`) cannot bound. The main thread keeps only a
// fallback timer (timeout + 1 s) in case the worker is not running.
//
// The worker is plain JavaScript started with `eval` (it needs no TypeScript loader, so it starts in tens
// of milliseconds from the sources and from dist/ alike), and its /proc walk is the only one. The main
// thread tells it about each run (pid, start time, limits) as soon as bwrap is spawned, and the two share
// a small SharedArrayBuffer per run: the main thread marks the run reaped, the worker records why and
// when it killed. Killing by process group is safe only while bwrap has not been reaped (afterwards its
// pid may be another process's): the main thread reaps, so the worker checks the reaped mark and that
// /proc/<pid>/stat still shows bwrap's start time right before each kill. Left open: a reap and a reuse
// of the same pid by a new process group leader, both in the microseconds between that check and the
// kill(2).
import { readFileSync } from 'node:fs';
import { Worker } from 'node:worker_threads';

/** How often the watchdog sums a sandbox's resident memory. */
export const watchdogIntervalMs = 100;
/** Slack over memoryMb for the whole tree: interpreter text, node's non-heap memory, page tables. */
export const watchdogSlackMb = 128;
/** The main thread's own timer fires this long after the supervisor's, should that one not have. */
export const fallbackGraceMs = 1000;

// Int32 slots of a run's shared buffer, then one Float64 (byte 16): when the supervisor first killed.
const reapedSlot = 0;
const timedOutSlot = 1;
const memorySlot = 2;
const killedAtIndex = 2; // Float64Array index (byte 16)
const sharedBytes = 24;

const workerSource = `
const { parentPort } = require('node:worker_threads');
const { readdirSync, readFileSync } = require('node:fs');
const pageBytes = 4096;
const now = () => performance.timeOrigin + performance.now();
const runs = new Map();
let poller = null;

function treeResidentBytes(rootPid) {
  let total = 0;
  const stack = [rootPid];
  for (let visited = 0; stack.length > 0 && visited < 10000; visited++) {
    const pid = stack.pop();
    try {
      total += Number(readFileSync('/proc/' + pid + '/statm', 'utf8').split(' ')[1]) * pageBytes;
      for (const task of readdirSync('/proc/' + pid + '/task')) {
        const children = readFileSync('/proc/' + pid + '/task/' + task + '/children', 'utf8').trim();
        if (children) for (const child of children.split(' ')) stack.push(Number(child));
      }
    } catch {}
  }
  return total;
}

// A timer can fire up to a millisecond early (libuv keeps time in whole milliseconds): a run is killed
// for time only once the clock has passed its deadline.
function expire(run) {
  const left = run.deadline - now();
  if (left > 0) {
    run.timer = setTimeout(() => expire(run), Math.ceil(left));
    return;
  }
  kill(run, 1);
}

function startTime(pid) {
  try {
    const stat = readFileSync('/proc/' + pid + '/stat', 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return null;
  }
}

function forget(id) {
  const run = runs.get(id);
  if (!run) return;
  clearTimeout(run.timer);
  runs.delete(id);
  if (runs.size === 0 && poller) {
    clearInterval(poller);
    poller = null;
  }
}

// Still bwrap, not reaped: its pid is its process group's id and nobody else's.
function ours(run) {
  if (Atomics.load(run.flags, 0) !== 0) return false;
  return run.startTime === null || startTime(run.pid) === run.startTime;
}

function kill(run, slot) {
  if (!ours(run)) return forget(run.id);
  Atomics.store(run.flags, slot, 1);
  if (run.times[2] === 0) run.times[2] = now();
  try {
    process.kill(-run.pid, 'SIGKILL');
  } catch {}
}

function poll() {
  for (const run of runs.values()) {
    if (Atomics.load(run.flags, 0) !== 0) {
      forget(run.id);
      continue;
    }
    if (run.memoryKilled) continue;
    if (treeResidentBytes(run.pid) > run.memoryLimitBytes) {
      run.memoryKilled = true;
      kill(run, 2);
    }
  }
}

parentPort.on('message', (message) => {
  if (message.type === 'release') return forget(message.id);
  const run = {
    ...message,
    flags: new Int32Array(message.buffer, 0, 3),
    times: new Float64Array(message.buffer, 0, 3),
    memoryKilled: false,
  };
  if (Atomics.load(run.flags, 0) !== 0) return;
  run.timer = setTimeout(() => expire(run), Math.max(0, Math.ceil(message.deadline - now())));
  runs.set(run.id, run);
  poller ??= setInterval(poll, ${watchdogIntervalMs});
});
`;

export interface WatchLimits {
  timeoutMs: number;
  /** The whole tree's resident memory may not pass this (memoryMb + watchdogSlackMb, in bytes). */
  memoryLimitBytes: number;
}

interface WatchMessage {
  type: 'watch';
  id: number;
  pid: number;
  startTime: string | null;
  /** performance.timeOrigin + performance.now() at which the run is over time (the same in every thread). */
  deadline: number;
  memoryLimitBytes: number;
  buffer: SharedArrayBuffer;
}

/** The time base shared by the main thread and the supervisor (ms; performance.timeOrigin + now()). */
export const supervisorClock = () => performance.timeOrigin + performance.now();

let worker: Worker | null = null;
let nextId = 0;
/** Runs the supervisor watches, by id: sent again to a new worker if the old one died. */
const watched = new Map<number, WatchMessage>();

function supervisor(): Worker {
  if (worker) return worker;
  const started = new Worker(workerSource, { eval: true, execArgv: [], env: {} });
  started.unref();
  const replace = () => {
    if (worker !== started) return;
    worker = null;
    if (watched.size > 0) {
      const next = supervisor();
      for (const message of watched.values()) next.postMessage(message);
    }
  };
  started.on('error', replace);
  started.on('exit', replace);
  worker = started;
  return started;
}

/** Starts the supervisor thread now rather than at the first run (it takes tens of milliseconds). */
export function startSupervisor(): void {
  supervisor();
}

/** `/proc/<pid>/stat`'s start time (field 22), or null when it cannot be read. */
function processStartTime(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? null;
  } catch {
    return null;
  }
}

/** One sandbox run as the supervisor sees it. */
export class RunWatch {
  private readonly flags: Int32Array;
  private readonly times: Float64Array;
  private released = false;

  constructor(
    private readonly id: number,
    buffer: SharedArrayBuffer,
    private readonly startedAt: number,
  ) {
    this.flags = new Int32Array(buffer, 0, 3);
    this.times = new Float64Array(buffer, 0, 3);
  }

  /** The supervisor killed the run at its wall-clock limit. */
  get timedOut(): boolean {
    return Atomics.load(this.flags, timedOutSlot) !== 0;
  }

  /** The supervisor killed the run because its processes together held more than the memory limit. */
  get memoryExceeded(): boolean {
    return Atomics.load(this.flags, memorySlot) !== 0;
  }

  /** Milliseconds from the start of the run to the supervisor's first SIGKILL, or null if it sent none. */
  get killedAfterMs(): number | null {
    const at = this.times[killedAtIndex];
    return at === 0 ? null : at - this.startedAt;
  }

  /**
   * bwrap has been reaped: from now on its pid may be someone else's, and the supervisor must not signal
   * it. Call it from the child's 'exit' event (the earliest the main thread learns of the reap).
   */
  reaped(): void {
    if (this.released) return;
    this.released = true;
    Atomics.store(this.flags, reapedSlot, 1);
    watched.delete(this.id);
    worker?.postMessage({ type: 'release', id: this.id });
  }
}

/**
 * Has the supervisor kill the process group `pid` (bwrap, spawned detached and not yet reaped) when it
 * passes `limits`. Call it synchronously after spawn, before the main thread can reap the child; `startedAt`
 * is `supervisorClock()` when the run started.
 */
export function superviseRun(pid: number, limits: WatchLimits, startedAt: number): RunWatch {
  const id = nextId++;
  const buffer = new SharedArrayBuffer(sharedBytes);
  const message: WatchMessage = {
    type: 'watch',
    id,
    pid,
    startTime: processStartTime(pid),
    deadline: startedAt + limits.timeoutMs,
    memoryLimitBytes: limits.memoryLimitBytes,
    buffer,
  };
  watched.set(id, message);
  supervisor().postMessage(message);
  return new RunWatch(id, buffer, startedAt);
}

/**
 * One output stream of a sandbox, capped: `add` counts every byte and keeps chunks only while the total
 * stays within `maxBytes` (stdout: nothing past the cap is kept, so the grader never parses more than the
 * cap) or, with `keepBytes`, only the first `keepBytes` (stderr, of which only the start is quoted).
 */
export class CappedStream {
  private readonly chunks: Buffer[] = [];
  private bytes = 0;

  constructor(
    private readonly maxBytes: number,
    private readonly keepBytes?: number,
  ) {}

  /** Adds a chunk; false once the stream has passed its cap (the caller kills the run). */
  add(chunk: Buffer): boolean {
    const before = this.bytes;
    this.bytes += chunk.length;
    const within = this.bytes <= this.maxBytes;
    if (this.keepBytes === undefined ? within : before < this.keepBytes) this.chunks.push(chunk);
    return within;
  }

  /** The kept bytes as UTF-8 (with `keepBytes`: its first `keepBytes` UTF-16 code units). */
  text(): string {
    const text = Buffer.concat(this.chunks).toString('utf8');
    return this.keepBytes === undefined ? text : text.slice(0, this.keepBytes);
  }
}
