// The Tinker client's HTTP transport: one request over node:http / node:https with a keep-alive agent,
// the whole body read into bytes. Not globalThis.fetch: an RL step sends ~40 small requests (one asample
// per prompt, their futures, forward_backward, optim_step, save_weights_for_sampler), and on this machine
// a burst of 16 small POSTs to a local server took 25–92 ms through fetch (undici and WHATWG streams) and
// 2–6 ms through node:http with keep-alive (scratch measurement, 2 cores, loaded) — most of the HTTP
// overhead of `curricula bench remote --only tinker`.
//
// Failures keep the two kinds the retry loop (http.ts) tells apart:
// - TransportConnectError: no response at all (refused, reset before the status line, timeout);
// - TransportBodyError: the status line arrived and the connection dropped mid-body.
// Idle keep-alive sockets do not hold the process open (the agent unrefs them); close() ends them.
import http from 'node:http';
import https from 'node:https';

export interface TransportReply {
  status: number;
  /** Response headers, lower-case names. */
  headers: Headers;
  body: Uint8Array;
}

export interface TransportRequest {
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: Uint8Array | string;
  timeoutMs: number;
}

export class TransportConnectError extends Error {
  override name = 'TransportConnectError';
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
  }
}

export class TransportBodyError extends Error {
  override name = 'TransportBodyError';
}

export class HttpTransport {
  private readonly agent: http.Agent;
  private readonly module: typeof http | typeof https;

  constructor(baseUrl: string) {
    const secure = new URL(baseUrl).protocol === 'https:';
    this.module = secure ? https : http;
    this.agent = secure ? new https.Agent({ keepAlive: true }) : new http.Agent({ keepAlive: true });
  }

  send(url: string, request: TransportRequest): Promise<TransportReply> {
    const body = typeof request.body === 'string' ? Buffer.from(request.body) : request.body;
    return new Promise((resolve, reject) => {
      let answered = false;
      const outgoing = this.module.request(
        url,
        {
          method: request.method,
          agent: this.agent,
          headers: { ...request.headers, ...(body ? { 'content-length': String(body.byteLength) } : {}) },
        },
        (response) => {
          answered = true;
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('error', (error) => reject(new TransportBodyError(error.message)));
          response.on('aborted', () => reject(new TransportBodyError('connection closed mid-body')));
          response.on('end', () => {
            if (!response.complete) {
              reject(new TransportBodyError('connection closed mid-body'));
              return;
            }
            const headers = new Headers();
            for (const [name, value] of Object.entries(response.headers)) {
              if (value === undefined) continue;
              for (const item of Array.isArray(value) ? value : [value]) headers.append(name, item);
            }
            const bytes = Buffer.concat(chunks);
            resolve({
              status: response.statusCode ?? 0,
              headers,
              body: new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength),
            });
          });
        },
      );
      outgoing.setTimeout(request.timeoutMs, () =>
        outgoing.destroy(
          answered
            ? new TransportBodyError(`no data for ${request.timeoutMs} ms`)
            : new TransportConnectError(`no answer in ${request.timeoutMs} ms`, 'TIMEOUT'),
        ),
      );
      outgoing.on('error', (error: NodeJS.ErrnoException) => {
        if (error instanceof TransportBodyError || error instanceof TransportConnectError) reject(error);
        else if (answered) reject(new TransportBodyError(error.message));
        else reject(new TransportConnectError(error.message, error.code ?? error.message));
      });
      outgoing.end(body);
    });
  }

  /** Ends the idle keep-alive sockets. */
  close(): void {
    this.agent.destroy();
  }
}
