// The shared server (app.ts) on real loopback HTTP: the API key (both header styles, constant-time
// compare), the body limit, JSON error bodies with the right status, and a handler that throws does not
// take the server down. A test protocol registered here stands in for openai/tinker.
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UserError } from '../core/errors.ts';
import { buildServer } from './app.ts';
import { type ProtocolName, protocols } from './protocols.ts';

protocols.register('test-echo', async (app) => {
  app.post('/echo', async (request) => ({ body: request.body }));
  app.get('/user-mistake', async () => {
    throw new UserError('bad field x');
  });
  app.get('/bug', async () => {
    throw new Error('internal bug');
  });
});

type ErrorBody = { error: { message: string; type: string; code?: string } };
const errorOf = async (response: Response) => ((await response.json()) as ErrorBody).error;

const context = {
  checkpoint: '/nonexistent',
  modelName: 'test',
  stateDir: '/nonexistent',
  loadPolicy: () => Promise.reject(new Error('not used')),
};

async function start(options: {
  apiKey?: string;
  bodyLimit?: number;
}): Promise<{ app: FastifyInstance; url: string }> {
  const app = await buildServer({ protocols: ['test-echo' as ProtocolName], context, ...options });
  await app.listen({ host: '127.0.0.1', port: 0 });
  return { app, url: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}` };
}

describe('serve: the shared server', () => {
  let keyed: { app: FastifyInstance; url: string };
  beforeAll(async () => {
    keyed = await start({ apiKey: 'tml-secret', bodyLimit: 1024 });
  });
  afterAll(async () => {
    await keyed.app.close();
  });

  const post = (headers: Record<string, string>, body: string) =>
    fetch(`${keyed.url}/echo`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body,
    });

  it('accepts the key as Bearer or X-API-Key, and refuses a missing or wrong one with 401 JSON', async () => {
    const accepted: Record<string, string>[] = [
      { authorization: 'Bearer tml-secret' },
      { 'x-api-key': 'tml-secret' },
    ];
    for (const headers of accepted) {
      const response = await post(headers, '{"a":1}');
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ body: { a: 1 } });
    }
    const cases: [Record<string, string>, string][] = [
      [{}, 'missing API key'],
      [{ authorization: 'Bearer tml-secreT' }, 'invalid API key'],
      [{ 'x-api-key': 'tml-secret-longer' }, 'invalid API key'],
      [{ authorization: 'Basic dG1sLXNlY3JldA==' }, 'missing API key'],
    ];
    for (const [headers, message] of cases) {
      const response = await post(headers, '{"a":1}');
      expect(response.status).toBe(401);
      expect(await response.json()).toEqual({ error: { message, type: 'authentication_error' } });
    }
  });

  it('answers bad input with JSON errors and the right status, and keeps serving', async () => {
    const auth = { 'x-api-key': 'tml-secret' };
    const tooBig = await post(auth, JSON.stringify({ pad: 'x'.repeat(2000) }));
    expect(tooBig.status).toBe(413);
    expect((await errorOf(tooBig)).message).toMatch(/body/i);
    const malformed = await post(auth, '{"a":');
    expect(malformed.status).toBe(400);
    expect((await errorOf(malformed)).type).toBe('invalid_request_error');
    const mistake = await fetch(`${keyed.url}/user-mistake`, { headers: auth });
    expect(mistake.status).toBe(400);
    expect((await errorOf(mistake)).message).toBe('bad field x');
    const bug = await fetch(`${keyed.url}/bug`, { headers: auth });
    expect(bug.status).toBe(500);
    expect(await errorOf(bug)).toEqual({ message: 'internal bug', type: 'server_error' });
    const missing = await fetch(`${keyed.url}/nowhere`, { headers: auth });
    expect(missing.status).toBe(404);
    expect((await errorOf(missing)).type).toBe('not_found_error');
    const still = await post(auth, '{"ok":true}');
    expect(await still.json()).toEqual({ body: { ok: true } });
  });

  it('needs no key when none is set, and refuses to start without a protocol', async () => {
    const open = await start({});
    try {
      const response = await fetch(`${open.url}/echo`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '[1]',
      });
      expect(await response.json()).toEqual({ body: [1] });
    } finally {
      await open.app.close();
    }
    await expect(buildServer({ protocols: [], context })).rejects.toThrow(/at least one protocol/);
  });
});
