// The HTTP layer of the Tinker client: one POST/GET with the SDK's headers and retries, and the
// retrieve_future polling loop (../shared/reference/tinker-wire-sdk-0.25.md §1 and §4). Requests go
// through transport.ts (node:http with keep-alive, not fetch: see there why).
// - Auth: `X-API-Key` (the stock SDK never sends Authorization); `tml-` keys are passed as given.
// - Every POST carries `X-Idempotency-Key`; the SAME key is reused on each retry of that call, so a server
//   that saw the first attempt (a dropped connection after the request arrived) returns the same future
//   instead of running the call twice.
// - Retries (like the SDK's HTTP layer): 408, 409, 429, ≥ 500 and connection errors, backoff
//   0.5 s·2ⁿ ≤ 10 s with −25 % jitter from a seeded Rng, `retry-after-ms` / `retry-after` honoured.
// - retrieve_future: `try_again` → poll again at once (the server long-polls); 408 / 5xx → re-poll;
//   429 → backoff; `{"error"}` → terminal TinkerCallError naming the call (with the error's `code`, which
//   backend.ts acts on: gradient_lost → replay).
// - A server that cannot be reached at all on the first call → TinkerUnreachableError (a UserError, one
//   line naming the URL).
// Deviation: idempotency keys come from node:crypto randomUUID (they must be unique across processes; a
// seeded Rng would repeat them between two runs with the same seed), the only non-seeded randomness here.
import { randomUUID } from 'node:crypto';
import { UserError } from '../../../core/errors.ts';
import { Rng } from '../../../core/rng.ts';
import { protobufContentType } from '../wire/index.ts';
import {
  HttpTransport,
  TransportBodyError,
  TransportConnectError,
  type TransportReply,
} from './transport.ts';

/**
 * A Tinker call that failed for good (terminal error from the server, or retries exhausted). `status`: the
 * HTTP status of a refused call; `code`: the error code a future failed with (e.g. gradient_lost).
 */
export class TinkerCallError extends UserError {
  override name = 'TinkerCallError';
  constructor(
    message: string,
    readonly detail: { status?: number; code?: string } = {},
  ) {
    super(message);
  }
}

/** The server could not be reached at all. */
export class TinkerUnreachableError extends UserError {
  override name = 'TinkerUnreachableError';
}

export interface HttpOptions {
  baseUrl: string;
  apiKey?: string;
  sdkVersion: string;
  /** Retries of one HTTP call after the first attempt. */
  maxRetries: number;
  /** Base backoff (ms): 500 in the SDK; tests use less. */
  backoffMs: number;
  /** Cap of one backoff (ms). */
  maxBackoffMs: number;
  /** Per-attempt timeout (ms) of plain calls; retrieve_future gets longPollTimeoutMs. */
  timeoutMs: number;
  longPollTimeoutMs: number;
  seed: number;
}

export interface HttpReply {
  status: number;
  contentType: string;
  body: Uint8Array;
  headers: Headers;
}

const retryableStatus = (status: number) =>
  status === 408 || status === 409 || status === 429 || status >= 500;

export class TinkerHttp {
  private readonly rng: Rng;
  private readonly transport: HttpTransport;
  /** Set after the first answer from the server: later connection failures are retried, not "down". */
  private reached = false;
  /** How many HTTP attempts were retried (observability for tests and logs). */
  retries = 0;

  constructor(readonly options: HttpOptions) {
    this.rng = new Rng(options.seed);
    this.transport = new HttpTransport(options.baseUrl);
  }

  private headers(extra: Record<string, string>): Record<string, string> {
    return {
      accept: 'application/json',
      'user-agent': `curricula-tinker-client (tinker-sdk-compatible ${this.options.sdkVersion})`,
      'x-stainless-package-version': this.options.sdkVersion,
      ...(this.options.apiKey ? { 'x-api-key': this.options.apiKey } : {}),
      ...extra,
    };
  }

  private backoff(attempt: number, retryAfter: Headers | undefined): number {
    const ms = Number(retryAfter?.get('retry-after-ms'));
    if (Number.isFinite(ms) && ms > 0) return Math.min(ms, 60_000);
    const seconds = Number(retryAfter?.get('retry-after'));
    if (Number.isFinite(seconds) && seconds > 0) return Math.min(seconds * 1000, 60_000);
    const base = Math.min(this.options.backoffMs * 2 ** attempt, this.options.maxBackoffMs);
    return base * (1 - 0.25 * this.rng.next());
  }

  /**
   * One HTTP call with retries (same idempotency key on every attempt of a POST). Returns the final reply
   * (2xx or a non-retryable status); throws TinkerCallError when retries run out.
   */
  async request(
    method: 'GET' | 'POST',
    path: string,
    body: Uint8Array | string | undefined,
    contentType: string,
    extra: Record<string, string> = {},
    timeoutMs = this.options.timeoutMs,
  ): Promise<HttpReply> {
    const url = `${this.options.baseUrl}/api/v1/${path}`;
    const key = method === 'POST' ? `curricula-retry-${randomUUID()}` : undefined;
    let lastProblem = '';
    for (let attempt = 0; attempt <= this.options.maxRetries; attempt++) {
      if (attempt > 0) this.retries++;
      let response: TransportReply;
      try {
        response = await this.transport.send(url, {
          method,
          headers: this.headers({
            ...(body !== undefined ? { 'content-type': contentType } : {}),
            ...(key ? { 'x-idempotency-key': key } : {}),
            'x-stainless-retry-count': String(attempt),
            ...extra,
          }),
          body,
          timeoutMs,
        });
      } catch (error) {
        if (error instanceof TransportBodyError) {
          // The connection dropped mid-body: retry the call (same key).
          this.reached = true;
          lastProblem = `body cut off (${error.message})`;
          await sleep(this.backoff(attempt, undefined));
          continue;
        }
        const code = error instanceof TransportConnectError ? error.code : String(error);
        if (!this.reached) {
          throw new TinkerUnreachableError(
            `cannot reach the Tinker server at ${this.options.baseUrl} (${code}); is it running?`,
          );
        }
        lastProblem = code;
        await sleep(this.backoff(attempt, undefined));
        continue;
      }
      this.reached = true;
      const reply = {
        status: response.status,
        contentType: response.headers.get('content-type') ?? '',
        body: response.body,
        headers: response.headers,
      };
      const shouldRetry = response.headers.get('x-should-retry');
      if (shouldRetry === 'false' || !(retryableStatus(response.status) || shouldRetry === 'true')) {
        return reply;
      }
      lastProblem = `HTTP ${response.status} ${new TextDecoder().decode(response.body).slice(0, 200)}`;
      await sleep(this.backoff(attempt, response.headers));
    }
    throw new TinkerCallError(
      `Tinker ${path} failed after ${this.options.maxRetries + 1} attempts: ${lastProblem}`,
    );
  }

  /** Ends the idle keep-alive connections (the client's close()). */
  close(): void {
    this.transport.close();
  }

  /** POST a JSON body; returns the parsed JSON reply (2xx) or throws TinkerCallError naming the call. */
  async postJson(path: string, body: unknown): Promise<any> {
    const reply = await this.request('POST', path, JSON.stringify(body), 'application/json');
    return parseJsonReply(path, reply);
  }

  async getJson(path: string): Promise<any> {
    return parseJsonReply(path, await this.request('GET', path, undefined, ''));
  }

  /** POST a protobuf body (forward_backward); the reply (a future envelope) is JSON. */
  async postProtobuf(path: string, body: Uint8Array): Promise<any> {
    return parseJsonReply(path, await this.request('POST', path, body, protobufContentType));
  }

  /**
   * Polls retrieve_future until the result: protobuf bytes (when `protobuf` and the server sent them) or
   * the JSON result. `call` names the original call in errors.
   */
  async retrieve(requestId: string, call: string, protobuf: boolean): Promise<Uint8Array | any> {
    const accept = protobuf ? `${protobufContentType}, application/json` : 'application/json';
    for (let iteration = 0, busy = 0; ; iteration++) {
      const reply = await this.request(
        'POST',
        'retrieve_future',
        JSON.stringify({ request_id: requestId, allow_metadata_only: false }),
        'application/json',
        { accept, 'x-tinker-request-iteration': String(iteration) },
        this.options.longPollTimeoutMs,
      ).catch((error) => {
        throw error instanceof TinkerCallError
          ? new TinkerCallError(`Tinker ${call}: ${error.message}`, error.detail)
          : error;
      });
      if (reply.status === 200 && reply.contentType.includes(protobufContentType)) return reply.body;
      const value = parseJsonReply(`${call} (retrieve_future)`, reply);
      if (value && typeof value === 'object' && 'error' in value) {
        throw new TinkerCallError(
          `Tinker ${call} failed on the server (${value.category ?? 'unknown'}): ${value.error}`,
          typeof value.code === 'string' ? { code: value.code } : {},
        );
      }
      if (value?.type === 'try_again') {
        // The server long-polls; a server that does not gets a short pause after a few instant answers.
        if (++busy > 3) await sleep(Math.min(5 * busy, 200));
        continue;
      }
      return value;
    }
  }
}

function parseJsonReply(call: string, reply: HttpReply): any {
  const text = new TextDecoder().decode(reply.body);
  let value: any;
  try {
    value = text === '' ? {} : JSON.parse(text);
  } catch {
    throw new TinkerCallError(`Tinker ${call}: HTTP ${reply.status}, not JSON: ${text.slice(0, 200)}`);
  }
  if (reply.status < 200 || reply.status >= 300) {
    const message = value?.error?.message ?? value?.message ?? value?.error ?? text.slice(0, 200);
    throw new TinkerCallError(`Tinker ${call}: HTTP ${reply.status}: ${JSON.stringify(message)}`, {
      status: reply.status,
    });
  }
  return value;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
