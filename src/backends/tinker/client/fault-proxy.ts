// A minimal fault-injecting HTTP proxy for the Tinker client tests (real sockets on loopback): each
// request is forwarded to the target unless a rule says otherwise. Faults:
//   'status-500'   answer 500 without forwarding (the server never sees the request);
//   'status-429'   answer 429 with Retry-After-Ms without forwarding;
//   'drop-after'   forward, let the server handle it, then destroy the client socket without an answer
//                  (the request took effect; the client must retry with the same idempotency key);
//   'drop-before'  destroy the client socket before forwarding.
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
    const upstream = await fetch(`${this.target}${path}`, {
      method: request.method,
      headers,
      body: request.method === 'GET' ? undefined : body,
    });
    const bytes = Buffer.from(await upstream.arrayBuffer());
    if (fault === 'drop-after') return void response.destroy();
    response.writeHead(upstream.status, {
      'content-type': upstream.headers.get('content-type') ?? 'application/json',
    });
    response.end(bytes);
  }
}
