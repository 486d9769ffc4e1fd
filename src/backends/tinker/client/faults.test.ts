// Fault injection between TinkerPolicyBackend and the real `curricula serve --tinker` (a proxy on
// loopback, src/testing/fault-proxy.ts): 500s, 429 with Retry-After, connections dropped before the
// request reaches the server and after it took effect, and a server restart. The run completes with 0
// duplicated and 0 lost optimizer steps (the server counts them: get_info.optimizer_steps) and the in-process weights.
import { afterEach, describe, expect, it } from 'vitest';
import type { Datum } from '../../../core/policy.ts';
import { EmbeddedBackend } from '../../../policy/embedded-backend.ts';
import {
  checkpoint,
  clientOptions,
  startTinkerServer,
} from '../../../testing/backends/tinker/client/test-server.ts';
import { type Fault, FaultProxy } from '../../../testing/fault-proxy.ts';
import { TinkerPolicyBackend } from './backend.ts';

const data: Datum[] = [
  { tokens: [1, 40, 41, 42, 43, 44, 45], weights: [0, 0.5, -1, 0.25, -0.75, 1] },
  { tokens: [1, 50, 51, 52, 53], weights: [0, -0.5, 2, -1] },
];
const probe = [[1, 40, 41, 42, 43, 44, 45, 50, 51, 52, 53]];

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function setup(extra: Record<string, unknown> = {}) {
  const server = await startTinkerServer();
  cleanups.push(() => server.app.close());
  const proxy = new FaultProxy(server.url);
  const proxyUrl = await proxy.listen();
  cleanups.push(() => proxy.close());
  const local = await EmbeddedBackend.load(checkpoint);
  const tokenizer = local.tokenizer;
  local.dispose();
  const backend = await TinkerPolicyBackend.connect(clientOptions(proxyUrl, extra), { tokenizer });
  cleanups.push(() => backend.close());
  return { server, proxy, backend };
}

async function serverOptimizerSteps(backend: TinkerPolicyBackend): Promise<number> {
  const info = await backend.http.postJson('get_info', { model_id: backend.modelId, type: 'get_info' });
  return info.optimizer_steps;
}

describe('Tinker client under injected faults', () => {
  it('500s, 429s and dropped connections: no duplicated or lost optimizer steps, same weights', async () => {
    const { proxy, backend } = await setup();
    const status500: Fault = { kind: 'status', status: 500, retryAfterMs: 20 };
    const status429: Fault = { kind: 'status', status: 429, retryAfterMs: 20 };
    const dropAfter: Fault = { kind: 'drop-after' };
    proxy.rules = [
      { path: '/forward_backward', occurrence: 1, fault: status500 },
      { path: '/forward_backward', occurrence: 2, fault: dropAfter },
      { path: '/optim_step', occurrence: 1, fault: dropAfter },
      { path: '/optim_step', occurrence: 3, fault: { kind: 'drop-before' } },
      { path: '/optim_step', occurrence: 4, fault: dropAfter },
      { path: '/retrieve_future', occurrence: 3, fault: dropAfter },
      { path: '/retrieve_future', occurrence: 6, fault: status500 },
      { path: '/save_weights_for_sampler', occurrence: 1, fault: status429 },
      { path: '/asample', occurrence: 1, fault: dropAfter },
    ];
    const reference = await EmbeddedBackend.load(checkpoint);
    try {
      for (let step = 1; step <= 3; step++) {
        await backend.forwardBackward(data, 'linear');
        const result = await backend.optimStep({ learningRate: 0.01 });
        expect(result.step).toBe(step);
        await reference.forwardBackward(data, 'linear');
        await reference.optimStep({ learningRate: 0.01 });
      }
      const sampled = await backend.sample([[1, 40, 41]], {
        n: 2,
        temperature: 1,
        topP: 1,
        maxTokens: 6,
        seed: 3,
      });
      expect(sampled[0]).toHaveLength(2);
      expect(proxy.injected).toHaveLength(proxy.rules.length);
      expect(await serverOptimizerSteps(backend)).toBe(3);
      const remote = await backend.forward(probe);
      const local = await reference.forward(probe);
      expect(Math.max(...remote[0].map((value, t) => Math.abs(value - local[0][t])))).toBeLessThan(1e-4);
      expect(backend.http.retries).toBeGreaterThanOrEqual(proxy.injected.length);
    } finally {
      reference.dispose();
    }
  });

  it('a server restarted on another (empty) state directory: a clear error naming the call, no silent step', async () => {
    const { server, proxy, backend } = await setup();
    await backend.forwardBackward(data, 'linear');
    // A restart on the same state directory restores the model (restart.test.ts); on another one the
    // server does not know the model, so the step cannot be applied; the client must say so rather than
    // hang or retry forever.
    await server.app.close();
    const restarted = await startTinkerServer();
    cleanups.push(() => restarted.app.close());
    proxy.retarget(restarted.url);
    await expect(backend.optimStep({ learningRate: 0.01 })).rejects.toThrow(/Tinker optim_step: HTTP 4\d\d/);
  });

  it('heartbeats the session while open and stops at close()', async () => {
    const { proxy, backend } = await setup({ heartbeatMs: 40 });
    const heartbeats = () => proxy.seen.filter((path) => path.endsWith('/session_heartbeat')).length;
    const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    for (let waited = 0; heartbeats() < 2 && waited < 3000; waited += 20) await sleep(20);
    expect(heartbeats()).toBeGreaterThanOrEqual(2);
    await backend.close();
    // Heartbeats already sent at close() may still arrive, later on a loaded machine: wait until none
    // has arrived for 300 ms (a timer still running would send one every 40 ms and never go quiet).
    let afterClose = heartbeats();
    for (let quiet = 0, waited = 0; quiet < 300 && waited < 5000; waited += 20) {
      await sleep(20);
      quiet = heartbeats() === afterClose ? quiet + 20 : 0;
      afterClose = heartbeats();
    }
    await sleep(240); // six heartbeat intervals
    expect(heartbeats()).toBe(afterClose);
    // The SDK's connect sequence, in order (tinker-wire-sdk-0.25.md §2).
    expect(proxy.seen.slice(0, 4)).toEqual([
      '/api/v1/client/config',
      '/api/v1/get_server_capabilities',
      '/api/v1/create_session',
      '/api/v1/create_model',
    ]);
  });
});
