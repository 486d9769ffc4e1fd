// Dashboard safety on real loopback HTTP: run names in paths cannot leave the runs directory (`..`, encoded
// dots and slashes; a symlink to a run outside is a 403), bad query values are 400s with a JSON body, unknown runs
// 404, the server survives all of it; with a token (non-loopback host) every route needs it.
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestRuns } from '../testing/dashboard/test-runs.ts';
import { isLoopback } from './access-token.ts';
import { buildDashboard } from './server.ts';

const TOKEN = 'a'.repeat(64);
let open: FastifyInstance;
let guarded: FastifyInstance;
let openUrl: string;
let guardedUrl: string;

beforeAll(async () => {
  const { runsDir } = createTestRuns();
  open = await buildDashboard({ runsDir });
  guarded = await buildDashboard({ runsDir, token: TOKEN });
  for (const app of [open, guarded]) await app.listen({ host: '127.0.0.1', port: 0 });
  openUrl = `http://127.0.0.1:${(open.server.address() as AddressInfo).port}`;
  guardedUrl = `http://127.0.0.1:${(guarded.server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await open?.close();
  await guarded?.close();
});

async function get(base: string, path: string, headers: Record<string, string> = {}) {
  const response = await fetch(`${base}${path}`, { headers });
  const text = await response.text();
  return { status: response.status, text, headers: response.headers, json: () => JSON.parse(text) };
}

describe('dashboard: paths stay inside the runs directory', () => {
  it.each([
    ['..', '/api/runs/../config'],
    ['encoded ..', '/api/runs/%2e%2e/config'],
    ['encoded slash', '/api/runs/..%2Foutside%2Fsecret/config'],
    ['encoded slash to a sibling', '/api/runs/sec-s1%2F..%2Fsec-s2/config'],
    ['hidden name', '/api/runs/.hidden/keys'],
    ['backslash', '/api/runs/..%5Coutside/keys'],
  ])('refuses %s with a JSON 400 (or no route)', async (_label, path) => {
    const response = await get(openUrl, path);
    expect([400, 404]).toContain(response.status);
    const body = response.json();
    expect(body.error.message).toBeTruthy();
    expect(body.config).toBeUndefined();
    expect(body.keys).toBeUndefined();
  });

  it('refuses a symlink that leads outside the runs directory', async () => {
    for (const route of ['config', 'keys', 'samples?step=4']) {
      const response = await get(openUrl, `/api/runs/escape/${route}`);
      expect(response.status).toBe(403);
      expect(response.json().error.message).toMatch(/outside the runs directory/);
    }
    const compare = await get(openUrl, '/api/compare?runs=sec-s1,escape');
    expect(compare.status).toBe(403);
    const diff = await get(openUrl, '/api/runs/sec-s1/config?diff=..');
    expect(diff.status).toBe(400);
  });

  it('answers an unknown run with 404, a corrupt one and bad queries with 400, and keeps serving', async () => {
    expect((await get(openUrl, '/api/runs/nope/keys')).status).toBe(404);
    const broken = await get(openUrl, '/api/runs/broken/keys');
    expect(broken.status).toBe(400);
    expect(broken.json().error.message).toMatch(/cannot be opened/);
    expect((await get(openUrl, '/api/runs/notes/keys')).status).toBe(400);
    expect((await get(openUrl, '/api/runs/sec-s1/samples')).status).toBe(400);
    expect((await get(openUrl, '/api/runs/sec-s1/samples?step=abc')).json().error.message).toMatch(/integer/);
    expect((await get(openUrl, '/api/runs/sec-s1/histogram?step=4&bins=0')).status).toBe(400);
    expect((await get(openUrl, '/api/runs/sec-s1/series')).status).toBe(400);
    expect((await get(openUrl, '/api/compare')).status).toBe(400);
    expect((await get(openUrl, '/api/compare?runs=sec-s1&baseline=nonexistent')).status).toBe(400);
    expect((await get(openUrl, '/web/../../package.json')).status).toBe(404);
    expect((await get(openUrl, '/api/runs')).status).toBe(200);
  });
});

describe('dashboard: access token', () => {
  it('needs no token on loopback only', () => {
    expect(isLoopback('127.0.0.1')).toBe(true);
    expect(isLoopback('::1')).toBe(true);
    expect(isLoopback('localhost')).toBe(true);
    expect(isLoopback('0.0.0.0')).toBe(false);
    expect(isLoopback('192.168.1.5')).toBe(false);
    expect(isLoopback('127.0.0.1.evil.com')).toBe(false);
  });

  it('answers 401 without the token or with a wrong one, on API and static routes', async () => {
    for (const path of ['/', '/api/runs', '/web/app.js', '/vendor/uPlot.iife.min.js']) {
      const response = await get(guardedUrl, path);
      expect(response.status).toBe(401);
      expect(response.json().error.message).toBe('missing access token');
    }
    const wrong = await get(guardedUrl, '/api/runs', { authorization: `Bearer ${'b'.repeat(64)}` });
    expect(wrong.status).toBe(401);
    expect(wrong.json().error.message).toBe('invalid access token');
    expect((await get(guardedUrl, `/api/runs?token=${TOKEN.slice(1)}`)).status).toBe(401);
  });

  it('accepts the token as a bearer header, a query parameter (setting a cookie) or that cookie', async () => {
    expect((await get(guardedUrl, '/api/runs', { authorization: `Bearer ${TOKEN}` })).status).toBe(200);
    const page = await get(guardedUrl, `/?token=${TOKEN}`);
    expect(page.status).toBe(200);
    const cookie = page.headers.get('set-cookie')!;
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Strict/);
    const viaCookie = await get(guardedUrl, '/api/runs', { cookie: cookie.split(';')[0] });
    expect(viaCookie.status).toBe(200);
  });
});
