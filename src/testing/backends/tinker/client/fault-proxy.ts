// A minimal fault-injecting HTTP proxy for the Tinker client tests (real sockets on loopback): each
// request is forwarded to the target unless a rule says otherwise. Faults:
//   'status-500'   answer 500 without forwarding (the server never sees the request);
//   'status-429'   answer 429 with Retry-After-Ms without forwarding;
//   'drop-after'   forward, let the server handle it, then destroy the client socket without an answer
//                  (the request took effect; the client must retry with the same idempotency key);
//   'drop-before'  destroy the client socket before forwarding.
// A `beforeForward` hook may hold a request (e.g. restart the server before an optim_step reaches it), and
// the proxy records which futures were settled by a retrieve_future answer (`settled`), so a test can wait
// for a forward_backward's result before acting.
// Test-only; not part of the product.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Fault = 'status-500' | 'status-429' | 'drop-after' | 'drop-before';

export interface FaultRule {
  /** Path suffix, e.g. '/optim_step'. */
  path: string;
  /** Which occurrence (1-based) of that path gets the fault. */
  occurrence: number;
  fault: Fault;
}

export class FaultProxy {
  private server: Server | undefined;
  private readonly counts = new Map<string, number>();
  readonly injected: string[] = [];
  /** Every request path seen, in arrival order. */
  readonly seen: string[] = [];
  rules: FaultRule[] = [];
  /** Runs before a request is forwarded (after its faults); the request waits for it. */
  beforeForward: ((path: string) => Promise<void>) | undefined;
  /** request_ids of the futures each POST answered, by path suffix, in order. */
  readonly envelopes: { path: string; requestId: string }[] = [];
  /** request_ids whose retrieve_future answer was a result (not try_again, not an error status). */
  readonly settled = new Set<string>();

  constructor(private target: string) {}

  /** Points the proxy at another server (a restart on a new port). */
  retarget(target: string): void {
    this.target = target;
  }

  async listen(): Promise<string> {
    this.server = createServer((request, response) => {
      this.handle(request, response).catch(() => response.destroy());
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }

  private async handle(request: IncomingMessage, response: import('node:http').ServerResponse) {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const path = request.url ?? '/';
    this.seen.push(path);
    const rulePath = this.rules.find((rule) => path.endsWith(rule.path))?.path;
    let fault: Fault | undefined;
    if (rulePath !== undefined) {
      const count = (this.counts.get(rulePath) ?? 0) + 1;
      this.counts.set(rulePath, count);
      fault = this.rules.find((rule) => rule.path === rulePath && rule.occurrence === count)?.fault;
    }
    if (fault) this.injected.push(`${fault} ${path}`);
    if (fault === 'drop-before') return void response.destroy();
    if (fault === 'status-500' || fault === 'status-429') {
      const status = fault === 'status-500' ? 500 : 429;
      response.writeHead(status, { 'content-type': 'application/json', 'retry-after-ms': '20' });
      return void response.end(JSON.stringify({ error: `injected ${status}` }));
    }
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(request.headers)) {
      if (typeof value === 'string' && name !== 'host' && name !== 'content-length') headers[name] = value;
    }
    const body = Buffer.concat(chunks);
    if (this.beforeForward) await this.beforeForward(path);
    const upstream = await fetch(`${this.target}${path}`, {
      method: request.method,
      headers,
      body: request.method === 'GET' ? undefined : body,
    });
    const bytes = Buffer.from(await upstream.arrayBuffer());
    this.observe(path, body, upstream, bytes);
    if (fault === 'drop-after') return void response.destroy();
    response.writeHead(upstream.status, {
      'content-type': upstream.headers.get('content-type') ?? 'application/json',
    });
    response.end(bytes);
  }

  private observe(path: string, body: Buffer, upstream: Response, bytes: Buffer): void {
    const json = (buffer: Buffer) => {
      try {
        return JSON.parse(buffer.toString('utf8'));
      } catch {
        return undefined;
      }
    };
    if (upstream.status !== 200) return;
    if (path.endsWith('/retrieve_future')) {
      const isJson = (upstream.headers.get('content-type') ?? '').includes('json');
      const answer = isJson ? json(bytes) : undefined;
      if (!isJson || (answer?.type !== 'try_again' && answer?.error === undefined))
        this.settled.add(json(body)?.request_id);
      return;
    }
    const requestId = json(bytes)?.request_id;
    if (typeof requestId === 'string') this.envelopes.push({ path, requestId });
  }
}
