// JSON over HTTP to an OpenAI-compatible server, made robust for long RL runs:
// - bounded concurrency (a semaphore over in-flight requests);
// - a per-request timeout (AbortSignal), counted per attempt;
// - retries with exponential backoff and "equal" jitter from an injected seeded Rng (no Math.random):
//   delay = min(maxDelay, initial · 2^attempt) · (1/2 + u/2), on 429, 408, 5xx, timeouts and dropped
//   connections (fetch rejecting, or the body stream failing mid-read). A 429 or 503 with Retry-After
//   (seconds or an HTTP date; OpenAI's `retry-after-ms` too) waits what the server asked (capped);
// - no retry on other 4xx: the request is wrong and repeating it cannot help. The error is a UserError
//   with one line: method, URL, status and the server's own message.
// `fetch` and `sleep` are injectable (tests; the default is Node's global fetch).
import { UserError } from './errors.ts';
import type { Rng } from './rng.ts';

export interface HttpClientOptions {
  /** Server root, e.g. http://127.0.0.1:8000 (routes such as /v1/completions are appended). */
  baseUrl: string;
  apiKey?: string;
  rng: Rng;
  fetch?: typeof fetch;
  sleep?: (ms: number) => Promise<void>;
  /** Per-attempt timeout in ms (default 120 s). */
  timeoutMs?: number;
  /** Retries after the first attempt (default 6). */
  maxRetries?: number;
  /** First backoff delay in ms (default 500). */
  initialDelayMs?: number;
  /** Largest backoff delay and largest honoured Retry-After, in ms (default 30 s). */
  maxDelayMs?: number;
  /** Most requests in flight at once (default 64). */
  maxConcurrency?: number;
}

/** A request the server refused (4xx other than 408/429) or that kept failing after every retry. */
export class OpenAiRequestError extends UserError {
  override name = 'OpenAiRequestError';
  constructor(
    message: string,
    readonly status: number | null,
  ) {
    super(message);
  }
}

export interface HttpResponse {
  status: number;
  /** Parsed JSON body, or the raw text when the body is not JSON (vLLM's adapter routes answer text). */
  body: unknown;
}

export interface RequestOptions {
  /** Return 4xx responses (other than 408/429) instead of throwing. */
  acceptClientErrors?: boolean;
  maxRetries?: number;
}

const retryableStatus = (status: number) => status === 408 || status === 429 || status >= 500;

export class OpenAiHttpClient {
  readonly baseUrl: string;
  /** Attempts made, including retries (for tests and logs). */
  attempts = 0;
  private readonly fetch: typeof fetch;
  private readonly sleep: (ms: number) => Promise<void>;
  private inFlight = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly options: HttpClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.fetch = options.fetch ?? globalThis.fetch;
    this.sleep = options.sleep ?? ((ms) => new Promise((done) => setTimeout(done, ms)));
  }

  post(path: string, body: unknown): Promise<HttpResponse> {
    return this.request('POST', path, body);
  }

  get(path: string): Promise<HttpResponse> {
    return this.request('GET', path);
  }

  /**
   * Sends with retries; resolves with a 2xx response, or a 4xx one when `acceptClientErrors` is set.
   * `maxRetries` overrides the client's (the first probe of a server uses few, so that a server that is
   * down is reported in about a second rather than after the full backoff).
   */
  async request(
    method: 'GET' | 'POST',
    path: string,
    body?: unknown,
    { acceptClientErrors = false, maxRetries }: RequestOptions = {},
  ): Promise<HttpResponse> {
    await this.acquire();
    try {
      return await this.withRetries(
        method,
        path,
        body,
        acceptClientErrors,
        maxRetries ?? this.options.maxRetries ?? 6,
      );
    } finally {
      this.release();
    }
  }

  private async withRetries(
    method: string,
    path: string,
    body: unknown,
    acceptClientErrors: boolean,
    maxRetries: number,
  ): Promise<HttpResponse> {
    const url = `${this.baseUrl}${path}`;
    for (let attempt = 0; ; attempt++) {
      let failure: string;
      let wait: number | null = null;
      try {
        const response = await this.attempt(method, url, body);
        if (response.status < 400) return response;
        const message = `${method} ${url}: HTTP ${response.status} ${errorMessage(response.body)}`;
        if (!retryableStatus(response.status)) {
          if (acceptClientErrors) return response;
          throw new OpenAiRequestError(message, response.status);
        }
        failure = message;
        wait = response.retryAfterMs;
      } catch (error) {
        if (error instanceof OpenAiRequestError) throw error;
        failure = `${method} ${url}: ${describeNetworkError(error)}`;
      }
      if (attempt >= maxRetries) {
        throw new OpenAiRequestError(`${failure} (gave up after ${attempt + 1} attempts)`, null);
      }
      await this.sleep(wait ?? this.backoff(attempt));
    }
  }

  private async attempt(
    method: string,
    url: string,
    body: unknown,
  ): Promise<HttpResponse & { retryAfterMs: number | null }> {
    this.attempts++;
    const headers: Record<string, string> = { accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (this.options.apiKey) headers.authorization = `Bearer ${this.options.apiKey}`;
    const response = await this.fetch(url, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(this.options.timeoutMs ?? 120_000),
    });
    // Reading the body can fail too (a connection dropped mid-body): that is a retryable network error.
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text.length > 0 ? JSON.parse(text) : null;
    } catch {
      // not JSON: keep the text
    }
    return { status: response.status, body: parsed, retryAfterMs: this.retryAfter(response.headers) };
  }

  private retryAfter(headers: Headers): number | null {
    const cap = this.options.maxDelayMs ?? 30_000;
    const milliseconds = Number(headers.get('retry-after-ms'));
    if (headers.has('retry-after-ms') && Number.isFinite(milliseconds) && milliseconds >= 0) {
      return Math.min(cap, milliseconds);
    }
    const value = headers.get('retry-after');
    if (value === null) return null;
    const seconds = Number(value);
    if (Number.isFinite(seconds) && seconds >= 0) return Math.min(cap, seconds * 1000);
    const date = Date.parse(value);
    return Number.isNaN(date) ? null : Math.min(cap, Math.max(0, date - Date.now()));
  }

  private backoff(attempt: number): number {
    const initial = this.options.initialDelayMs ?? 500;
    const ceiling = Math.min(this.options.maxDelayMs ?? 30_000, initial * 2 ** attempt);
    return ceiling * (0.5 + 0.5 * this.options.rng.next());
  }

  private async acquire(): Promise<void> {
    if (this.inFlight < (this.options.maxConcurrency ?? 64)) {
      this.inFlight++;
      return;
    }
    await new Promise<void>((resume) => this.waiting.push(resume));
  }

  private release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.inFlight--;
  }
}

/** The server's error message (OpenAI `{error: {message}}`, FastAPI `{detail}`, or the text). */
function errorMessage(body: unknown): string {
  if (typeof body === 'string') return body.slice(0, 300);
  if (body && typeof body === 'object') {
    const record = body as { error?: { message?: unknown } | string; detail?: unknown; message?: unknown };
    if (typeof record.error === 'string') return record.error;
    if (record.error && typeof record.error.message === 'string') return record.error.message;
    if (typeof record.detail === 'string') return record.detail;
    if (typeof record.message === 'string') return record.message;
  }
  return JSON.stringify(body)?.slice(0, 300) ?? '';
}

function describeNetworkError(error: unknown): string {
  if (error instanceof Error) {
    if (error.name === 'TimeoutError') return 'timed out';
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    const detail = cause?.code ?? cause?.message;
    return detail ? `${error.message} (${detail})` : error.message;
  }
  return String(error);
}
