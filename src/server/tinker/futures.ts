// The futures of `curricula serve --tinker`. Every mutating Tinker call answers at once with a future
// `{request_id, model_id?}`; the client then polls POST /api/v1/retrieve_future until the result is there
// (tinker-wire-sdk-0.25.md §4). The SDK re-polls immediately after a `try_again`, so the server long-polls:
// it holds a retrieve_future until the future settles or `holdMs` pass (default 30 s, under the SDK's
// 45 s read timeout), without blocking other requests.
//
// Idempotency: the SDK re-sends a call with the same `X-Idempotency-Key` after a 5xx or a dropped
// connection; the same key (on the same route) returns the same future, so nothing runs twice.
// After a restart the results of the last completed optim_steps come back from the durable state
// (restore(): same request_id, same key), so a retried call or poll still gets its result.
// Memory is bounded: the oldest settled futures and keys are forgotten beyond `capacity` (the SDK
// retrieves a result within seconds; a forgotten one is a 404).
import { randomUUID } from 'node:crypto';
import type { ForwardBackwardOutput, SampleResponse } from '../../backends/tinker/wire/index.ts';

export type FutureResult =
  | { kind: 'json'; body: Record<string, unknown> }
  | { kind: 'forward_backward'; output: ForwardBackwardOutput }
  | { kind: 'sample'; response: SampleResponse };

/** Tinker's RequestErrorCategory: `user` = the request was wrong, `server` = we failed. */
export type ErrorCategory = 'user' | 'server';

export type FutureState =
  | { state: 'pending' }
  | { state: 'done'; result: FutureResult }
  | {
      state: 'failed';
      error: string;
      category: ErrorCategory;
      code?: string;
      details?: Record<string, unknown>;
    };

interface Future {
  requestId: string;
  modelId?: string;
  status: FutureState;
  waiters: Set<() => void>;
}

export interface FutureEnvelope {
  request_id: string;
  model_id?: string;
}

export class FutureStore {
  private readonly futures = new Map<string, Future>();
  private readonly byKey = new Map<string, string>();
  private closed = false;

  constructor(private readonly capacity = 4096) {}

  /** The future already made for this idempotency key, if any. */
  lookup(idempotencyKey: string | undefined): FutureEnvelope | undefined {
    if (idempotencyKey === undefined) return undefined;
    const requestId = this.byKey.get(idempotencyKey);
    const future = requestId === undefined ? undefined : this.futures.get(requestId);
    return future ? this.envelope(future) : undefined;
  }

  create(idempotencyKey: string | undefined, modelId?: string): FutureEnvelope {
    const future: Future = {
      requestId: randomUUID(),
      modelId,
      status: { state: 'pending' },
      waiters: new Set(),
    };
    this.futures.set(future.requestId, future);
    if (idempotencyKey !== undefined) this.byKey.set(idempotencyKey, future.requestId);
    this.evict();
    return this.envelope(future);
  }

  resolve(requestId: string, result: FutureResult): void {
    this.settle(requestId, { state: 'done', result });
  }

  /** `code` and `details` (optional) let a client tell one error from another (gradient-lost.ts). */
  fail(
    requestId: string,
    error: string,
    category: ErrorCategory,
    code?: string,
    details?: Record<string, unknown>,
  ): void {
    this.settle(requestId, {
      state: 'failed',
      error,
      category,
      ...(code ? { code } : {}),
      ...(details ? { details } : {}),
    });
  }

  /** A settled future brought back from the durable state after a restart (its key answers it again). */
  restore(idempotencyKey: string | null, requestId: string, modelId: string, result: FutureResult): void {
    this.futures.set(requestId, {
      requestId,
      modelId,
      status: { state: 'done', result },
      waiters: new Set(),
    });
    if (idempotencyKey !== null) this.byKey.set(idempotencyKey, requestId);
    this.evict();
  }

  /** The future's state after waiting up to holdMs for it to settle; undefined for an unknown id. */
  async wait(requestId: string, holdMs: number): Promise<FutureState | undefined> {
    const future = this.futures.get(requestId);
    if (future === undefined) return undefined;
    if (future.status.state !== 'pending' || this.closed || holdMs <= 0) return future.status;
    await new Promise<void>((wake) => {
      const timer = setTimeout(done, holdMs);
      function done() {
        clearTimeout(timer);
        future!.waiters.delete(done);
        wake();
      }
      future.waiters.add(done);
    });
    return future.status;
  }

  /** Wakes every long-poll (they answer try_again) so the server can close. */
  close(): void {
    this.closed = true;
    for (const future of this.futures.values()) for (const wake of [...future.waiters]) wake();
  }

  private settle(requestId: string, status: FutureState): void {
    const future = this.futures.get(requestId);
    if (future === undefined || future.status.state !== 'pending') return;
    future.status = status;
    for (const wake of [...future.waiters]) wake();
  }

  private envelope(future: Future): FutureEnvelope {
    return { request_id: future.requestId, ...(future.modelId ? { model_id: future.modelId } : {}) };
  }

  private evict(): void {
    if (this.futures.size > this.capacity) {
      for (const [id, future] of this.futures) {
        if (this.futures.size <= this.capacity) break;
        if (future.status.state !== 'pending') this.futures.delete(id);
      }
    }
    while (this.byKey.size > this.capacity) this.byKey.delete(this.byKey.keys().next().value!);
  }
}
