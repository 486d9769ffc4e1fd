// HTTP for the remote environment client, over Node's global fetch: a wall-clock limit per request (an
// AbortSignal that also stops reading the body), bounded retries with exponential backoff where a retry
// can help (no connection, 429, 5xx: the errors the ORS Python SDK retries, src/ors/client/_http.py), and
// a cap on the bytes read from any answer, so a server that answers megabytes or never stops cannot
// exhaust memory. A request that is late is not retried (a tool call may not be idempotent, and the
// episode's step timeout would pass anyway); an answer that is not the protocol is not retried either.
// Every failure is a RemoteEnvironmentError naming the method, the URL and what went wrong.
import { RemoteEnvironmentError } from './remote-error.ts';

/** Limits of every request to an environment server. */
export interface HttpOptions {
  /** Wall-clock ms per request, body included. */
  timeoutMs: number;
  /** Further attempts after a connection error, a 429 or a 5xx answer. */
  retries: number;
  /** Delay before the first retry; each further one doubles it (capped at 5 s). */
  backoffMs: number;
  /** Most bytes read from one answer. */
  maxResponseBytes: number;
}

/** One request: method, URL, JSON body and extra headers. */
export interface HttpRequest {
  method: 'GET' | 'POST';
  url: string;
  body?: unknown;
  headers?: Record<string, string>;
}

/** Reads an answer's body; it receives the request's error factory so its errors name the request. */
export type BodyReader<T> = (
  response: Response,
  fail: (what: string) => RemoteEnvironmentError,
) => Promise<T>;

class Retryable extends Error {}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Why fetch rejected, in a few words (Node puts the system error code in `cause`). */
function connectionProblem(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } })?.cause;
  return cause?.code ?? cause?.message ?? (error instanceof Error ? error.message : String(error));
}

function isTimeout(error: unknown): boolean {
  return error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError');
}

/**
 * The body's bytes as text, at most `maxBytes` (the reader is cancelled past it); a Content-Length over
 * the cap is refused before reading.
 */
export async function readCapped(
  response: Response,
  maxBytes: number,
  fail: (what: string) => RemoteEnvironmentError,
): Promise<string> {
  const declared = Number(response.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > maxBytes) {
    await response.body?.cancel().catch(() => undefined);
    throw fail(`answered ${declared} bytes, more than the ${maxBytes} allowed (maxResponseBytes)`);
  }
  const reader = response.body?.getReader();
  if (!reader) return '';
  const decoder = new TextDecoder();
  let text = '';
  let total = 0;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw fail(`answered more than the ${maxBytes} bytes allowed (maxResponseBytes)`);
    }
    text += decoder.decode(value, { stream: true });
  }
  return text + decoder.decode();
}

/** The detail of an error answer: its JSON `detail` (FastAPI's, the ORS SDK's) or its first 200 characters. */
async function errorDetail(response: Response, options: HttpOptions): Promise<string> {
  const fail = (what: string) => new RemoteEnvironmentError('', '', what);
  const text = await readCapped(response, Math.min(options.maxResponseBytes, 65_536), fail).catch(() => '');
  try {
    const detail = (JSON.parse(text) as { detail?: unknown }).detail;
    if (detail !== undefined) return typeof detail === 'string' ? detail : JSON.stringify(detail);
  } catch {
    // not JSON: the text itself
  }
  return text.slice(0, 200);
}

/** One attempt: the answer read by `read`, Retryable where another attempt may help. */
async function attempt<T>(request: HttpRequest, options: HttpOptions, read: BodyReader<T>): Promise<T> {
  const fail = (what: string) => new RemoteEnvironmentError(request.method, request.url, what);
  const signal = AbortSignal.timeout(options.timeoutMs);
  try {
    const response = await fetch(request.url, {
      method: request.method,
      signal,
      headers: {
        ...(request.body === undefined ? {} : { 'Content-Type': 'application/json' }),
        ...request.headers,
      },
      body: request.body === undefined ? undefined : JSON.stringify(request.body),
    });
    if (!response.ok) {
      const detail = await errorDetail(response, options);
      const what = `answered ${response.status}${detail ? `: ${detail}` : ''}`;
      if (response.status >= 500 || response.status === 429) throw new Retryable(what);
      throw fail(what);
    }
    return await read(response, fail);
  } catch (error) {
    if (error instanceof RemoteEnvironmentError || error instanceof Retryable) throw error;
    if (isTimeout(error) || signal.aborted)
      throw fail(`did not answer within ${options.timeoutMs} ms (timeoutMs)`);
    throw new Retryable(`connection failed (${connectionProblem(error)})`);
  }
}

/** Sends `request` with the retries and limits of `options`; its answer as `read` returns it. */
export async function send<T>(request: HttpRequest, options: HttpOptions, read: BodyReader<T>): Promise<T> {
  const attempts = options.retries + 1;
  for (let index = 0; ; index++) {
    try {
      return await attempt(request, options, read);
    } catch (error) {
      if (!(error instanceof Retryable)) throw error;
      if (index + 1 >= attempts)
        throw new RemoteEnvironmentError(
          request.method,
          request.url,
          `${error.message} (${attempts} attempt${attempts === 1 ? '' : 's'})`,
        );
      await sleep(Math.min(5000, options.backoffMs * 2 ** index));
    }
  }
}

/** The answer's body parsed as JSON (capped); a body that is not JSON is an error quoting its start. */
export function jsonBody(maxBytes: number): BodyReader<unknown> {
  return async (response, fail) => {
    const text = await readCapped(response, maxBytes, fail);
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw fail(`answered something that is not JSON: ${JSON.stringify(text.slice(0, 80))}`);
    }
  };
}
