// A small, generic pool of node:worker_threads with a per-task timeout: task in, result out.
//
// Why: verifiers (compute-engine, sandboxes, parsers) are synchronous CPU code that can hang or blow up on
// adversarial input. A task that overruns its timeout gets its worker terminated (the only way to stop
// synchronous JS) and replaced; the caller gets a WorkerTimeoutError in bounded time and the pool keeps
// working. A worker that crashes is replaced the same way (WorkerCrashError). This is the pattern verl uses
// around Math-Verify (a process pool with a per-item timeout, restarted on timeout), with threads.
//
// Worker side: the worker module calls `serveWorker(handler)`. Main side: `new WorkerPool(url, options)`.
// TypeScript workers: the project runs TS through the tsx loader (no build step). A worker thread does not
// inherit the main thread's loader hooks, and on Node 20 `execArgv: ['--import', 'tsx']` does not apply to
// the worker's entry module either ("Unknown file extension .ts"). So a worker whose URL ends in `.ts` is
// started from a tiny inline bootstrap that registers tsx's ESM hooks (`tsx/esm/api`) inside the worker and
// then imports the module. This works under `node --import tsx`, the CLI (bin/curricula.mjs) and vitest.
// Loading tsx plus the module takes a few hundred ms per worker; the pool counts task timeouts only from
// the moment a worker has said it is ready. From the compiled package (dist/) the worker URLs end in `.js`
// (sibling-module.ts) and the worker starts from its module directly; tsx is then never loaded.
//
// Idle workers are unref'd so that a pool nobody closed does not keep the process alive; busy and starting
// ones are ref'd so that an awaited task cannot be abandoned by the process exiting. Still call close().
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { parentPort, type ResourceLimits, Worker } from 'node:worker_threads';
import { isTypeScriptModule } from './sibling-module.ts';

export interface WorkerPoolOptions {
  /** Number of worker threads. */
  size: number;
  /** Default per-task time limit in milliseconds, counted from the moment a worker receives the task. */
  timeoutMs: number;
  /** Node flags for the workers (default none). */
  execArgv?: string[];
  /** Load the module through tsx's bootstrap (default: when the URL ends in .ts, .mts or .cts). */
  typescript?: boolean;
  /** Passed to every worker as `workerData` (structured-cloned). */
  workerData?: unknown;
  /** Memory limits per worker (see node:worker_threads ResourceLimits). */
  resourceLimits?: ResourceLimits;
  /**
   * Tasks sent ahead to each worker (default 1). With more, a worker never idles waiting for the main
   * thread between tasks, which raises throughput for sub-millisecond tasks; each task's time limit still
   * counts only from when it starts (when the task before it returns), and tasks queued behind a task that
   * times out or crashes are re-sent to other workers, not failed.
   */
  pipeline?: number;
  /** How long a worker may take to load before its first task is failed (ms). Default 60 000. */
  startupTimeoutMs?: number;
}

/** A task ran past its time limit; its worker was terminated and replaced. */
export class WorkerTimeoutError extends Error {
  override name = 'WorkerTimeoutError';
  constructor(readonly timeoutMs: number) {
    super(`task timed out after ${timeoutMs} ms`);
  }
}

/** The worker died (uncaught error, out of memory, exit) while running a task, or failed to start. */
export class WorkerCrashError extends Error {
  override name = 'WorkerCrashError';
}

/** The handler threw inside the worker; `message` is the handler's error message. */
export class WorkerTaskError extends Error {
  override name = 'WorkerTaskError';
}

/** The pool was closed before the task ran. */
export class WorkerPoolClosedError extends Error {
  override name = 'WorkerPoolClosedError';
}

interface Job<TTask, TResult> {
  task: TTask;
  timeoutMs: number;
  resolve: (value: TResult) => void;
  reject: (error: Error) => void;
}

interface Slot<TTask, TResult> {
  worker: Worker;
  ready: boolean;
  /** Tasks sent to this worker, oldest first; the worker runs them in order, so only the head is running. */
  inFlight: { id: number; job: Job<TTask, TResult> }[];
  /** Time limit of the head task. */
  timer: NodeJS.Timeout | null;
  startupTimer: NodeJS.Timeout | null;
  nextId: number;
  dead: boolean;
}

type WorkerMessage =
  | { type: 'ready' }
  | { type: 'result'; id: number; ok: boolean; value?: unknown; error?: string };

export class WorkerPool<TTask, TResult> {
  private readonly slots: Slot<TTask, TResult>[] = [];
  private queue: Job<TTask, TResult>[] = [];
  private closed = false;
  private readonly pipeline: number;
  /** Counts of terminated-and-replaced workers, for tests and metrics. */
  replacements = 0;

  constructor(
    private readonly url: URL,
    private readonly options: WorkerPoolOptions,
  ) {
    if (!Number.isInteger(options.size) || options.size < 1) {
      throw new RangeError(`WorkerPool: size must be a positive integer, got ${options.size}`);
    }
    if (!(options.timeoutMs > 0)) {
      throw new RangeError(`WorkerPool: timeoutMs must be > 0, got ${options.timeoutMs}`);
    }
    this.pipeline = options.pipeline ?? 1;
    if (!Number.isInteger(this.pipeline) || this.pipeline < 1) {
      throw new RangeError(`WorkerPool: pipeline must be a positive integer, got ${options.pipeline}`);
    }
    for (let i = 0; i < options.size; i++) this.slots.push(this.spawn());
  }

  get size(): number {
    return this.options.size;
  }

  /** Tasks waiting for a worker (not counting the ones sent to one). */
  get pending(): number {
    return this.queue.length;
  }

  /** Runs one task; rejects with WorkerTimeoutError, WorkerCrashError, WorkerTaskError or WorkerPoolClosedError. */
  run(task: TTask, options: { timeoutMs?: number } = {}): Promise<TResult> {
    if (this.closed) return Promise.reject(new WorkerPoolClosedError('worker pool is closed'));
    return new Promise<TResult>((resolve, reject) => {
      this.queue.push({ task, timeoutMs: options.timeoutMs ?? this.options.timeoutMs, resolve, reject });
      this.dispatch();
    });
  }

  /** Runs many tasks; each settles independently (a timeout fails only its own task). */
  runAll(
    tasks: readonly TTask[],
    options: { timeoutMs?: number } = {},
  ): Promise<PromiseSettledResult<TResult>[]> {
    return Promise.allSettled(tasks.map((task) => this.run(task, options)));
  }

  /** Rejects queued and running tasks and terminates all workers. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const error = new WorkerPoolClosedError('worker pool closed');
    for (const job of this.queue.splice(0)) job.reject(error);
    await Promise.all(
      this.slots.map(async (slot) => {
        this.clearTimers(slot);
        slot.dead = true;
        for (const { job } of slot.inFlight.splice(0)) job.reject(error);
        await slot.worker.terminate();
      }),
    );
  }

  private spawn(): Slot<TTask, TResult> {
    const typescript = this.options.typescript ?? isTypeScriptModule(this.url);
    const workerOptions = {
      execArgv: this.options.execArgv ?? [],
      workerData: this.options.workerData,
      resourceLimits: this.options.resourceLimits,
    };
    const worker = typescript
      ? new Worker(tsxBootstrap(this.url), { ...workerOptions, eval: true })
      : new Worker(this.url, workerOptions);
    const slot: Slot<TTask, TResult> = {
      worker,
      ready: false,
      inFlight: [],
      timer: null,
      startupTimer: null,
      nextId: 0,
      dead: false,
    };
    worker.on('message', (message: WorkerMessage) => this.onMessage(slot, message));
    worker.on('error', (error: Error) =>
      this.onFailure(slot, new WorkerCrashError(`worker crashed: ${error.message}`)),
    );
    worker.on('exit', (code) =>
      this.onFailure(slot, new WorkerCrashError(`worker exited with code ${code}`)),
    );
    slot.startupTimer = setTimeout(() => {
      this.onFailure(slot, new WorkerCrashError('worker did not start in time'));
    }, this.options.startupTimeoutMs ?? 60_000);
    slot.startupTimer.unref();
    return slot;
  }

  private onMessage(slot: Slot<TTask, TResult>, message: WorkerMessage): void {
    if (slot.dead) return;
    if (message.type === 'ready') {
      slot.ready = true;
      // A starting worker keeps the process alive (tasks may be queued for it); a ready, idle one does not.
      slot.worker.unref();
      if (slot.startupTimer) clearTimeout(slot.startupTimer);
      slot.startupTimer = null;
      this.dispatch();
      return;
    }
    const head = slot.inFlight[0];
    if (!head || message.id !== head.id) return;
    slot.inFlight.shift();
    if (slot.timer) clearTimeout(slot.timer);
    slot.timer = null;
    // The worker starts its next task as soon as it has posted this result: its clock starts now.
    if (slot.inFlight.length > 0) this.startTimer(slot);
    else slot.worker.unref();
    if (message.ok) head.job.resolve(message.value as TResult);
    else head.job.reject(new WorkerTaskError(message.error ?? 'unknown error'));
    this.dispatch();
  }

  /** A worker died, failed to start, or was killed for a timeout: fail its running task and replace it. */
  private onFailure(slot: Slot<TTask, TResult>, error: Error): void {
    if (slot.dead) return;
    slot.dead = true;
    this.clearTimers(slot);
    const [head, ...waiting] = slot.inFlight.splice(0);
    if (head) head.job.reject(error);
    else if (!slot.ready) {
      // A worker that cannot even start would fail forever; fail one queued task per failed start so that
      // callers see the error instead of waiting, and the loop cannot spin without making progress.
      this.queue.shift()?.reject(error);
    }
    // Tasks sent behind the failed one never started: they go back to the front of the queue.
    this.queue = [...waiting.map((entry) => entry.job), ...this.queue];
    void slot.worker.terminate();
    if (this.closed) return;
    this.replacements++;
    const index = this.slots.indexOf(slot);
    if (index >= 0) this.slots[index] = this.spawn();
    this.dispatch();
  }

  private dispatch(): void {
    if (this.closed) return;
    for (const slot of this.slots) {
      if (!slot.ready || slot.dead) continue;
      while (this.queue.length > 0 && slot.inFlight.length < this.pipeline) {
        const job = this.queue.shift()!;
        const id = slot.nextId++;
        try {
          slot.worker.postMessage({ type: 'task', id, task: job.task });
        } catch (error) {
          job.reject(
            new WorkerTaskError(`task could not be sent to the worker: ${(error as Error).message}`),
          );
          continue;
        }
        slot.inFlight.push({ id, job });
        if (slot.inFlight.length === 1) {
          slot.worker.ref();
          this.startTimer(slot);
        }
      }
      if (this.queue.length === 0) return;
    }
  }

  private startTimer(slot: Slot<TTask, TResult>): void {
    const head = slot.inFlight[0];
    slot.timer = setTimeout(
      () => this.onFailure(slot, new WorkerTimeoutError(head.job.timeoutMs)),
      head.job.timeoutMs,
    );
  }

  private clearTimers(slot: Slot<TTask, TResult>): void {
    if (slot.timer) clearTimeout(slot.timer);
    if (slot.startupTimer) clearTimeout(slot.startupTimer);
    slot.timer = null;
    slot.startupTimer = null;
  }
}

/** Inline (eval) worker code that registers tsx's ESM loader in the worker thread, then imports `url`. */
export function tsxBootstrap(url: URL): string {
  // tsx/esm/api resolves to index.cjs under `require`; its ESM twin sits next to it as index.mjs.
  const api = pathToFileURL(
    createRequire(import.meta.url)
      .resolve('tsx/esm/api')
      .replace(/\.cjs$/, '.mjs'),
  ).href;
  return `import(${JSON.stringify(api)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(url.href)}); });`;
}

/**
 * Worker side: answers the pool's task messages with `handler(task)`. Call once at the top level of the worker
 * module, after any slow imports (the pool sends tasks only once the worker says it is ready).
 */
export function serveWorker<TTask, TResult>(handler: (task: TTask) => TResult | Promise<TResult>): void {
  const port = parentPort;
  if (!port) throw new Error('serveWorker must be called inside a worker thread');
  port.on('message', async (message: { type: 'task'; id: number; task: TTask }) => {
    if (message?.type !== 'task') return;
    try {
      const value = await handler(message.task);
      port.postMessage({ type: 'result', id: message.id, ok: true, value });
    } catch (error) {
      const text = error instanceof Error ? error.message : String(error);
      port.postMessage({ type: 'result', id: message.id, ok: false, error: text });
    }
  });
  port.postMessage({ type: 'ready' });
}
