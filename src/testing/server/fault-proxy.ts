// A loopback HTTP proxy for reliability tests: it forwards requests to a target server and, per request,
// follows a script of faults — a slow response, an error status answered by the proxy itself (500, 429
// with Retry-After), a connection dropped before any answer, or a connection dropped mid-body (the
// upstream did the work, the client sees a truncated body). Faults are taken from the front of `script`
// in arrival order for requests whose path passes `filter`; once the script is empty, requests pass.
// The proxy records what it did with each request, so a test can tell which ones reached the server.
import { once } from 'node:events';
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
  /** Forward after waiting `ms`. */
  | { kind: 'delay'; ms: number }
  /** Answer `status` without forwarding (with Retry-After seconds when given). */
  | { kind: 'status'; status: number; retryAfterSeconds?: number }
  /** Destroy the connection without answering (not forwarded). */
  | { kind: 'drop' }
  /** Forward, then send the headers and half the body, and destroy the connection. */
  | { kind: 'drop-mid-body' };

export interface ProxyRecord {
  method: string;
  path: string;
  fault: Fault['kind'];
  /** Whether the request reached the target server. */
  forwarded: boolean;
}

export interface FaultProxy {
  /** http://127.0.0.1:PORT */
  url: string;
  /** Faults still to apply, front first (push to script more). */
  script: Fault[];
  records: ProxyRecord[];
  close(): Promise<void>;
}

export interface FaultProxyOptions {
  /** Only requests whose path passes get faults (default: all). */
  filter?: (path: string) => boolean;
}

async function readBody(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

interface Upstream {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

function forward(target: URL, request: IncomingMessage, body: Buffer): Promise<Upstream> {
  return new Promise((resolve, reject) => {
    const headers = { ...request.headers, host: target.host };
    const outgoing = httpRequest(
      { host: target.hostname, port: target.port, method: request.method, path: request.url, headers },
      async (response) => {
        try {
          resolve({
            status: response.statusCode ?? 502,
            headers: response.headers,
            body: await readBody(response),
          });
        } catch (error) {
          reject(error);
        }
      },
    );
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

export async function startFaultProxy(
  targetUrl: string,
  options: FaultProxyOptions = {},
): Promise<FaultProxy> {
  const target = new URL(targetUrl);
  const script: Fault[] = [];
  const records: ProxyRecord[] = [];
  const sockets = new Set<import('node:net').Socket>();

  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    const path = request.url ?? '/';
    const body = await readBody(request);
    const applies = options.filter ? options.filter(path) : true;
    const fault: Fault = (applies ? script.shift() : undefined) ?? { kind: 'pass' };
    const record: ProxyRecord = {
      method: request.method ?? 'GET',
      path,
      fault: fault.kind,
      forwarded: false,
    };
    records.push(record);
    if (fault.kind === 'drop') {
      request.socket.destroy();
      return;
    }
    if (fault.kind === 'status') {
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (fault.retryAfterSeconds !== undefined) headers['retry-after'] = String(fault.retryAfterSeconds);
      response.writeHead(fault.status, headers);
      response.end(JSON.stringify({ error: { message: `injected ${fault.status}`, type: 'fault_proxy' } }));
      return;
    }
    if (fault.kind === 'delay') await new Promise((done) => setTimeout(done, fault.ms));
    record.forwarded = true;
    let upstream: Upstream;
    try {
      upstream = await forward(target, request, body);
    } catch (error) {
      response.writeHead(502, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({ error: { message: `proxy: ${(error as Error).message}`, type: 'fault_proxy' } }),
      );
      return;
    }
    const headers: Record<string, string | string[] | undefined> = {
      ...upstream.headers,
      'content-length': String(upstream.body.length),
    };
    delete headers['transfer-encoding'];
    delete headers.connection;
    response.writeHead(upstream.status, headers);
    if (fault.kind === 'drop-mid-body') {
      response.write(upstream.body.subarray(0, Math.floor(upstream.body.length / 2)), () =>
        request.socket.destroy(),
      );
      return;
    }
    response.end(upstream.body);
  };

  const server: Server = createServer((request, response) => {
    handle(request, response).catch(() => request.socket.destroy());
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    script,
    records,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((done) => server.close(() => done()));
    },
  };
}
