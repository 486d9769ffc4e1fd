// The Tinker client's transport (transport.ts) and its use by the retry loop (http.ts), against raw TCP
// servers on loopback that answer exactly as each case needs: a whole reply, a reply cut off mid-body, no
// answer at all, a refused port.
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { TinkerHttp, TinkerUnreachableError } from './http.ts';
import { HttpTransport, TransportBodyError, TransportConnectError } from './transport.ts';

const servers: net.Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

/**
 * A server that reads each request (headers + content-length body) and lets `answer` write to the socket;
 * `requests` records every request head and the connection it came on.
 */
async function rawServer(answer: (socket: net.Socket, index: number) => void) {
  const requests: { head: string; connection: number }[] = [];
  let connections = 0;
  const server = net.createServer((socket) => {
    const connection = connections++;
    let buffer = Buffer.alloc(0);
    socket.on('data', (chunk) => {
      buffer = Buffer.concat([buffer, chunk]);
      for (;;) {
        const end = buffer.indexOf('\r\n\r\n');
        if (end < 0) return;
        const head = buffer.subarray(0, end).toString();
        const length = Number(/content-length: (\d+)/i.exec(head)?.[1] ?? 0);
        if (buffer.length < end + 4 + length) return;
        buffer = buffer.subarray(end + 4 + length);
        requests.push({ head, connection });
        answer(socket, requests.length - 1);
      }
    });
    socket.on('error', () => undefined);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return { url: `http://127.0.0.1:${port}`, requests };
}

const ok = (body: string) =>
  `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\nx-extra: 1\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
const request = { method: 'POST' as const, headers: { 'content-type': 'application/json' }, timeoutMs: 2000 };

describe('HttpTransport', () => {
  it('returns status, headers and the whole body, and keeps the connection alive between requests', async () => {
    const server = await rawServer((socket) => socket.write(ok('{"a":1}')));
    const transport = new HttpTransport(server.url);
    try {
      for (let i = 0; i < 3; i++) {
        const reply = await transport.send(`${server.url}/x`, { ...request, body: '{"n":1}' });
        expect(reply.status).toBe(200);
        expect(reply.headers.get('x-extra')).toBe('1');
        expect(new TextDecoder().decode(reply.body)).toBe('{"a":1}');
      }
      expect(server.requests.map((entry) => entry.connection)).toEqual([0, 0, 0]);
      expect(server.requests[0].head).toMatch(/^POST \/x HTTP\/1.1/);
      expect(server.requests[0].head).toMatch(/content-length: 7/i);
    } finally {
      transport.close();
    }
  });

  it('a connection cut mid-body is a TransportBodyError, not a short body', async () => {
    const server = await rawServer((socket) => {
      socket.write('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{"a":');
      setTimeout(() => socket.destroy(), 20);
    });
    const transport = new HttpTransport(server.url);
    try {
      await expect(transport.send(`${server.url}/x`, { ...request, body: '{}' })).rejects.toThrow(
        TransportBodyError,
      );
    } finally {
      transport.close();
    }
  });

  it('no answer is a TransportConnectError: refused, or silent past the timeout', async () => {
    const silent = await rawServer(() => undefined);
    const transport = new HttpTransport(silent.url);
    try {
      const timedOut = transport.send(`${silent.url}/x`, { ...request, timeoutMs: 100 });
      await expect(timedOut).rejects.toThrow(TransportConnectError);
      await expect(timedOut).rejects.toMatchObject({ code: 'TIMEOUT' });
      const closed = await rawServer(() => undefined);
      servers.pop()!.close();
      await new Promise((resolve) => setTimeout(resolve, 20));
      await expect(transport.send(`${closed.url}/x`, request)).rejects.toMatchObject({
        name: 'TransportConnectError',
        code: 'ECONNREFUSED',
      });
    } finally {
      transport.close();
    }
  });
});

describe('TinkerHttp over the transport', () => {
  const options = (baseUrl: string) => ({
    baseUrl,
    sdkVersion: '0.25.0',
    maxRetries: 2,
    backoffMs: 1,
    maxBackoffMs: 5,
    timeoutMs: 2000,
    longPollTimeoutMs: 2000,
    seed: 1,
  });

  it('retries a reply cut mid-body with the same idempotency key, and returns the next whole one', async () => {
    const server = await rawServer((socket, index) => {
      if (index === 1) {
        socket.write('HTTP/1.1 200 OK\r\ncontent-length: 50\r\n\r\n{"ok"');
        setTimeout(() => socket.destroy(), 20);
      } else socket.write(ok('{"ok":true}'));
    });
    const client = new TinkerHttp(options(server.url));
    try {
      expect(await client.postJson('first', {})).toEqual({ ok: true });
      expect(await client.postJson('second', {})).toEqual({ ok: true });
      expect(client.retries).toBe(1);
      const keys = server.requests.map((entry) => /x-idempotency-key: (\S+)/i.exec(entry.head)?.[1]);
      expect(server.requests.map((entry) => entry.head.split(' ')[1])).toEqual([
        '/api/v1/first',
        '/api/v1/second',
        '/api/v1/second',
      ]);
      expect(keys[2]).toBe(keys[1]);
      expect(keys[1]).not.toBe(keys[0]);
    } finally {
      client.close();
    }
  });

  it('a server that is down at the first call is one clear TinkerUnreachableError naming the URL', async () => {
    const down = await rawServer(() => undefined);
    servers.pop()!.close();
    await new Promise((resolve) => setTimeout(resolve, 20));
    const client = new TinkerHttp(options(down.url));
    try {
      await expect(client.getJson('healthz')).rejects.toThrow(TinkerUnreachableError);
      await expect(client.getJson('healthz')).rejects.toThrow(
        `cannot reach the Tinker server at ${down.url} (ECONNREFUSED); is it running?`,
      );
    } finally {
      client.close();
    }
  });
});
