// Main-thread end of one policy replica thread (worker-replica.ts): addressed request/response calls
// over node:worker_threads, with the failure rules of the worker-parallel backend:
// - a call the replica answers with an exception rejects with PolicyWorkerError naming the worker and
//   the call (a UserError keeps its class and message: it is the user's mistake, not the worker's);
// - a worker that dies (uncaught exception, out of memory, exit) rejects every pending call, and every
//   later one, with PolicyWorkerError naming it; the owner (parallel-backend.ts) then closes the others.
// Like WorkerPool, the thread is unref'd while idle, so a backend nobody closed does not keep the process
// alive, and ref'd while a call is pending. A TypeScript entry (sources) is started through tsx's bootstrap;
// a compiled one (dist/*.js) directly.
import {
  type Worker as NodeWorker,
  type ResourceLimits,
  type TransferListItem,
  Worker,
} from 'node:worker_threads';
import { CheckpointError, ConfigError, CurriculaError, DataError, UserError } from '../core/errors.ts';
import { isTypeScriptModule } from '../core/sibling-module.ts';
import { tsxBootstrap } from '../core/worker-pool.ts';
import type { SerializableTokenizer } from './embedded-backend.ts';

/** A policy worker thread failed or died; the message names the worker (`policy worker 2 of 4`). */
export class PolicyWorkerError extends CurriculaError {
  override name = 'PolicyWorkerError';
}

/** Where a worker finds the `(json) => tokenizer` function: a module URL and `Name` or `Name.method`. */
export interface TokenizerFactory {
  module: string;
  exportName: string;
}

/** Imports a TokenizerFactory (a static method is called on its class, keeping its `this`). */
export async function importTokenizerFactory(
  factory: TokenizerFactory,
): Promise<(json: unknown) => SerializableTokenizer> {
  const module = (await import(factory.module)) as Record<string, unknown>;
  const [exportName, member] = factory.exportName.split('.');
  const owner = module[exportName] as Record<string, (json: unknown) => SerializableTokenizer>;
  if (!member) return owner as unknown as (json: unknown) => SerializableTokenizer;
  return (json) => owner[member](json);
}

export type ReplicaRequest = { type: 'call'; id: number; method: string; args: unknown[] };

export type ReplicaResponse =
  | { type: 'ready' }
  | { type: 'result'; id: number; ok: true; value: unknown }
  | { type: 'result'; id: number; ok: false; error: { name: string; message: string } };

const userErrors: Record<string, new (message: string) => UserError> = {
  UserError,
  ConfigError,
  CheckpointError,
  DataError,
};

interface Pending {
  method: string;
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
}

export class WorkerLink {
  readonly label: string;
  private readonly worker: NodeWorker;
  private readonly pending = new Map<number, Pending>();
  private nextId = 0;
  private failure: Error | null = null;
  private closing = false;
  private exitedFlag = false;
  private closed: Promise<void> | null = null;
  /** Resolves when the replica has built its model; rejects if it dies first. */
  readonly ready: Promise<void>;

  constructor(
    url: URL,
    workerData: unknown,
    label: string,
    private readonly onDeath: (error: PolicyWorkerError) => void,
    resourceLimits?: ResourceLimits,
  ) {
    this.label = label;
    this.worker = isTypeScriptModule(url)
      ? new Worker(tsxBootstrap(url), { eval: true, workerData, execArgv: [], resourceLimits })
      : new Worker(url, { workerData, execArgv: [], resourceLimits });
    let markReady: () => void = () => undefined;
    let failStart: (error: Error) => void = () => undefined;
    this.ready = new Promise<void>((resolve, reject) => {
      markReady = resolve;
      failStart = reject;
    });
    // Observed here so that a startup failure that nobody awaits yet is not an unhandled rejection.
    this.ready.catch(() => undefined);
    this.worker.on('message', (message: ReplicaResponse) => {
      if (message.type === 'ready') {
        this.refresh();
        markReady();
        return;
      }
      const call = this.pending.get(message.id);
      if (!call) return;
      this.pending.delete(message.id);
      this.refresh();
      if (message.ok) call.resolve(message.value);
      else call.reject(this.remoteError(call.method, message.error));
    });
    const die = (problem: string) => {
      if (this.failure || this.closing) return;
      const error = new PolicyWorkerError(`${label} ${problem}`);
      this.failure = error;
      failStart(error);
      for (const call of this.pending.values()) call.reject(error);
      this.pending.clear();
      this.onDeath(error);
    };
    this.worker.on('error', (error: Error) => die(`crashed: ${error.message}`));
    this.worker.on('exit', (code) => {
      this.exitedFlag = true;
      die(`exited with code ${code}`);
    });
  }

  /** Whether the thread has ended (after close(), a crash or an exit). */
  get exited(): boolean {
    return this.exitedFlag;
  }

  /** Calls `method` on the replica; `transfer` lists buffers moved (not copied) to the worker. */
  call<T>(method: string, args: unknown[] = [], transfer: TransferListItem[] = []): Promise<T> {
    if (this.failure) return Promise.reject(this.failure);
    if (this.closing) return Promise.reject(new PolicyWorkerError(`${this.label} is closed`));
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { method, resolve: resolve as (value: unknown) => void, reject });
      this.refresh();
      try {
        this.worker.postMessage({ type: 'call', id, method, args } satisfies ReplicaRequest, transfer);
      } catch (error) {
        this.pending.delete(id);
        this.refresh();
        reject(new PolicyWorkerError(`${this.label}: cannot send ${method}: ${(error as Error).message}`));
      }
    });
  }

  /** Marks the link failed (a sibling died) without waiting: later calls reject with `error`. */
  fail(error: Error): void {
    if (this.failure) return;
    this.failure = error;
    for (const call of this.pending.values()) call.reject(error);
    this.pending.clear();
  }

  /** Terminates the thread; pending calls reject. Every call waits for the same termination. */
  close(): Promise<void> {
    if (this.closed) return this.closed;
    this.closing = true;
    const error = this.failure ?? new PolicyWorkerError(`${this.label} was closed`);
    for (const call of this.pending.values()) call.reject(error);
    this.pending.clear();
    this.closed = this.worker.terminate().then(() => {
      this.exitedFlag = true;
    });
    return this.closed;
  }

  /** Test support: terminates the thread as if it had died. */
  async killForTest(): Promise<void> {
    await this.worker.terminate();
  }

  private refresh(): void {
    if (this.pending.size > 0) this.worker.ref();
    else this.worker.unref();
  }

  private remoteError(method: string, error: { name: string; message: string }): Error {
    const UserClass = userErrors[error.name];
    if (UserClass) return new UserClass(error.message);
    return new PolicyWorkerError(`${this.label} failed in ${method}: ${error.name}: ${error.message}`);
  }
}
