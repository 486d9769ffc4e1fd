// A loopback HTTP proxy for the reliability tests of the HTTP clients (the OpenAI sampling backend, the
// Tinker client backend): it forwards each request to a target server unless a fault says otherwise.
// Faults, each for one request:
//   delay          forward after waiting `ms`;
//   status         answer `status` without forwarding (the server never sees the request), with
//                  Retry-After (seconds) and/or Retry-After-Ms when given;
//   drop-before    destroy the client's connection before forwarding;
//   drop-after     forward, let the server do the work, then destroy the connection without an answer
//                  (the request took effect; a client must retry it idempotently);
//   drop-mid-body  forward, send the headers and half the body, then destroy the connection.
// A request gets its fault from one of two sources: `rules` (the n-th request whose path ends with a
// rule's path, counted per path) or, failing that, the front of `script` (requests whose path passes
// `filter`, in arrival order). A `beforeForward` hook may hold a request (restart the server before an
// optim_step reaches it; `retarget` points the proxy at the new port). The proxy records what it did with
// each request (`records`), the futures each POST answered (`envelopes`) and the futures a
// retrieve_future answer settled (`settled`), so a test can tell which requests reached the server and
// wait for a result before acting. An unreachable target destroys the client's connection, as a dead
// server would.
import {
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';

export type Fault =
  | { kind: 'pass' }
  | { kind: 'delay'; ms: number }
  | { kind: 'status'; status: number; retryAfterSeconds?: number; retryAfterMs?: number }
  | { kind: 'drop-before' }
  | { kind: 'drop-after' }
  | { kind: 'drop-mid-body' };

export interface FaultRule {
  /** Path suffix, e.g. '/optim_step'. */
  path: string;
  /** Which occurrence (1-based) of that path gets the fault. */
  occurrence: number;
  fault: Fault;
}

export interface ProxyRecord {
  method: string;
  path: string;
  fault: Fault['kind'];
  /** Whether the request reached the target server. */
  forwarded: boolean;
}

export interface FaultProxyOptions {
  /** Only requests whose path passes take faults from `script` (default: all). */
  filter?: (path: string) => boolean;
}

interface Upstream {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

async function readBody(stream: AsyncIterable<unknown>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

function forward(target: URL, request: IncomingMessage, body: Buffer): Promise<Upstream> {
  return new Promise((resolve, reject) => {
    const headers = { ...request.headers, host: target.host };
    const outgoing = httpRequest(
      { host: target.hostname, port: target.port, method: request.method, path: request.url, headers },
      (response) => {
        readBody(response).then(
          (bytes) => resolve({ status: response.statusCode ?? 502, headers: response.headers, body: bytes }),
          reject,
        );
      },
    );
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

function json(buffer: Buffer): any {
  try {
    return JSON.parse(buffer.toString('utf8'));
  } catch {
    return undefined;
  }
}

export class FaultProxy {
  private server: Server | undefined;
  private address: string | undefined;
  private readonly counts = new Map<string, number>();
  /** Faults by path and occurrence; take precedence over `script`. */
  rules: FaultRule[] = [];
  /** Faults still to apply, front first, to requests that pass `filter` and match no rule. */
  readonly script: Fault[] = [];
  /** What the proxy did with each request, in arrival order. */
  readonly records: ProxyRecord[] = [];
  /** Runs before a request is forwarded (after its fault); the request waits for it. */
  beforeForward: ((path: string) => Promise<void>) | undefined;
  /** request_ids of the futures each POST answered, with the request's path, in order. */
  readonly envelopes: { path: string; requestId: string }[] = [];
  /** request_ids whose retrieve_future answer was a result (not try_again, not an error status). */
  readonly settled = new Set<string>();

  constructor(
    private target: string,
    private readonly options: FaultProxyOptions = {},
  ) {}

  /** http://127.0.0.1:PORT, once listening. */
  get url(): string {
    if (!this.address) throw new Error('fault proxy: not listening');
    return this.address;
  }

  /** Every request path, in arrival order. */
  get seen(): string[] {
    return this.records.map((record) => record.path);
  }

  /** `<fault> <path>` of every request that got a fault. */
  get injected(): string[] {
    return this.records.filter((record) => record.fault !== 'pass').map((r) => `${r.fault} ${r.path}`);
  }

  /** Points the proxy at another server (a restart on a new port). */
  retarget(target: string): void {
    this.target = target;
  }

  async listen(): Promise<string> {
    const server = createServer((request, response) => {
      this.handle(request, response).catch(() => response.destroy());
    });
    this.server = server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    this.address = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return this.address;
  }

  async close(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }

  /** The fault for a request to `path`: its rule's, else the script's front (if `filter` passes). */
  private faultFor(path: string): Fault {
    const rulePath = this.rules.find((rule) => path.endsWith(rule.path))?.path;
    if (rulePath !== undefined) {
      const count = (this.counts.get(rulePath) ?? 0) + 1;
      this.counts.set(rulePath, count);
      const rule = this.rules.find((r) => r.path === rulePath && r.occurrence === count);
      if (rule) return rule.fault;
    }
    const scripted = (this.options.filter?.(path) ?? true) ? this.script.shift() : undefined;
    return scripted ?? { kind: 'pass' };
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const body = await readBody(request);
    const path = request.url ?? '/';
    const fault = this.faultFor(path);
    const record: ProxyRecord = {
      method: request.method ?? 'GET',
      path,
      fault: fault.kind,
      forwarded: false,
    };
    this.records.push(record);
    if (fault.kind === 'drop-before') return void response.destroy();
    if (fault.kind === 'status') {
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (fault.retryAfterSeconds !== undefined) headers['retry-after'] = String(fault.retryAfterSeconds);
      if (fault.retryAfterMs !== undefined) headers['retry-after-ms'] = String(fault.retryAfterMs);
      response.writeHead(fault.status, headers);
      return void response.end(
        JSON.stringify({ error: { message: `injected ${fault.status}`, type: 'fault_proxy' } }),
      );
    }
    if (fault.kind === 'delay') await new Promise((done) => setTimeout(done, fault.ms));
    if (this.beforeForward) await this.beforeForward(path);
    record.forwarded = true;
    const upstream = await forward(new URL(this.target), request, body);
    this.observe(path, body, upstream);
    if (fault.kind === 'drop-after') return void response.destroy();
    const headers: Upstream['headers'] = {
      ...upstream.headers,
      'content-length': String(upstream.body.length),
    };
    delete headers['transfer-encoding'];
    delete headers.connection;
    response.writeHead(upstream.status, headers);
    if (fault.kind === 'drop-mid-body') {
      const half = upstream.body.subarray(0, Math.floor(upstream.body.length / 2));
      return void response.write(half, () => response.destroy());
    }
    response.end(upstream.body);
  }

  /** Notes the future a POST answered, or the one a retrieve_future answer settled. */
  private observe(path: string, body: Buffer, upstream: Upstream): void {
    if (upstream.status !== 200) return;
    const contentType = String(upstream.headers['content-type'] ?? '');
    if (path.endsWith('/retrieve_future')) {
      const answer = contentType.includes('json') ? json(upstream.body) : undefined;
      if (!contentType.includes('json') || (answer?.type !== 'try_again' && answer?.error === undefined))
        this.settled.add(json(body)?.request_id);
      return;
    }
    const requestId = json(upstream.body)?.request_id;
    if (typeof requestId === 'string') this.envelopes.push({ path, requestId });
  }
}

/** A FaultProxy in front of `targetUrl`, already listening (its address is `url`). */
export async function startFaultProxy(
  targetUrl: string,
  options: FaultProxyOptions = {},
): Promise<FaultProxy> {
  const proxy = new FaultProxy(targetUrl, options);
  await proxy.listen();
  return proxy;
}
