// The real `curricula tinker-check` and `curricula train --policy tinker://…` in child processes, against
// `curricula serve --tinker` running in this process (loopback, demo-cold) or a port where nothing listens.
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiKey, startTinkerServer } from '../../testing/backends/tinker/client/test-server.ts';

const bin = join(import.meta.dirname, '../../../bin/curricula.mjs');
const config = join(import.meta.dirname, '../../../examples/demo-train.yaml');

function run(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', TINKER_API_KEY: apiKey };
    execFile(process.execPath, [bin, ...args], { timeout: 60_000, env }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === 'number' ? error.code : 1;
      resolve({ code, stdout, stderr });
    });
  });
}

let app: FastifyInstance;
let url: string;
beforeAll(async () => {
  ({ app, url } = await startTinkerServer());
});
afterAll(async () => {
  await app?.close();
});

describe.concurrent('Tinker client commands', () => {
  it('tinker-check: every built-in loss passes against curricula serve --tinker (exit 0)', async () => {
    const tinkerUrl = url.replace('http://', 'tinker://');
    const { code, stdout, stderr } = await run([
      'tinker-check',
      '--url',
      tinkerUrl,
      '--base-model',
      'demo-cold',
    ]);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    for (const loss of ['cross_entropy', 'importance_sampling', 'ppo', 'cispo'])
      expect(stdout).toMatch(new RegExp(`^PASS  ${loss} `, 'm'));
  });

  it('train --policy at a server that is down: one line naming the URL, exit 2, nothing written', async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const port = (probe.address() as AddressInfo).port;
    await new Promise((resolve) => probe.close(resolve));
    const runsDir = mkdtempSync(join(tmpdir(), 'tinker-cli-down-'));
    const { code, stderr } = await run([
      'train',
      '--config',
      config,
      '--policy',
      `tinker://127.0.0.1:${port}`,
      '--base-model',
      'demo-cold',
      '--set',
      `runsDir=${runsDir}`,
    ]);
    expect(code).toBe(2);
    expect(stderr.trim()).toBe(
      `error: cannot reach the Tinker server at http://127.0.0.1:${port} (ECONNREFUSED); is it running?`,
    );
    expect(readdirSync(runsDir)).toEqual([]);
  });

  it('train --policy without --base-model, or not a tinker URL: exit 2 with the fix', async () => {
    const missing = await run(['train', '--config', config, '--policy', 'tinker://127.0.0.1:1']);
    expect([missing.code, missing.stderr.trim()]).toEqual([2, 'error: --policy needs --base-model <name>']);
    const wrong = await run(['train', '--config', config, '--policy', 'vllm', '--base-model', 'x']);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain("--policy must be tinker://HOST:PORT (or an http URL), got 'vllm'");
  });
});
