// A server restart between forward_backward and optim_step (issue 11, docs/tinker-serving.md "Surviving a
// server restart"): the real `curricula serve --tinker` in process, closed and started again on the same
// state directory and port while the fault proxy holds the client's optim_step. The run completes with the
// uninterrupted run's metrics, samples and weights; a retried optim_step that completed before the restart
// is answered from the durable state and never steps twice; a sampling session lost in the restart is made
// again.
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Datum } from '../../../core/policy.ts';
import { readCheckpoint } from '../../../policy/checkpoint.ts';
import { EmbeddedBackend } from '../../../policy/embedded-backend.ts';
import { RunStore } from '../../../runs/run-store.ts';
import { durableVersions, readDurableVersion } from '../../../server/tinker/durable-store.ts';
import {
  apiKey,
  baseModel,
  checkpoint,
  clientOptions,
  smallRunConfig,
  startTinkerServer,
} from '../../../testing/backends/tinker/client/test-server.ts';
import { FaultProxy } from '../../../testing/fault-proxy.ts';
import { train } from '../../../training/rl/train.ts';
import { TinkerPolicyBackend } from './backend.ts';

type Server = Awaited<ReturnType<typeof startTinkerServer>>;
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A server behind a proxy that can restart it on the same port and state directory. */
async function restartableServer() {
  const log: string[] = [];
  let server: Server = await startTinkerServer(0, { log: (line) => log.push(line) });
  const port = Number(new URL(server.url).port);
  const proxy = new FaultProxy(server.url);
  const url = await proxy.listen();
  cleanups.push(() => proxy.close());
  cleanups.push(() => server.app.close());
  return {
    proxy,
    url,
    log,
    stateDir: server.stateDir,
    restart: async () => {
      await server.app.close();
      server = await startTinkerServer(port, { stateDir: server.stateDir, log: (line) => log.push(line) });
    },
  };
}

/** The one model's newest durable state in a state directory. */
function durableState(stateDir: string) {
  const models = readdirSync(stateDir).filter((name) => name.includes(':train:'));
  expect(models).toHaveLength(1);
  const newest = durableVersions(join(stateDir, models[0], 'durable'))[0];
  return { dir: newest, meta: readDurableVersion(newest) };
}

/** How many distinct futures the calls of one path made (retries with one idempotency key make one). */
function futuresOf(proxy: FaultProxy, path: string): number {
  return new Set(proxy.envelopes.filter((entry) => entry.path.endsWith(path)).map((entry) => entry.requestId))
    .size;
}

async function getInfo(url: string, modelId: string) {
  const response = await fetch(`${url}/api/v1/get_info`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
    body: JSON.stringify({ model_id: modelId, type: 'get_info' }),
  });
  return { status: response.status, body: (await response.json()) as any };
}

async function connect(url: string) {
  const local = await EmbeddedBackend.load(checkpoint);
  const tokenizer = local.tokenizer;
  local.dispose();
  const backend = await TinkerPolicyBackend.connect(clientOptions(url), { tokenizer });
  cleanups.push(() => backend.close());
  return backend;
}

function config(name: string, runsDir: string, url: string) {
  return smallRunConfig(
    name,
    runsDir,
    { workers: 1, backend: 'tinker', tinker: { url, baseModel } },
    { steps: 3, batchSize: 2, learningRate: 0.001 },
    { log: { samplesPerStep: 16 } },
  );
}

/** Every logged metric but wall-clock ones, and the logged samples, of each step. */
function runRecord(runDir: string, steps: number) {
  const store = RunStore.read(runDir);
  try {
    const names = store.keys().filter((name) => !name.startsWith('perf/') && !name.includes('seconds'));
    return Array.from({ length: steps + 1 }, (_, step) => ({
      metrics: Object.fromEntries(
        names.flatMap((name) => {
          const row = store.series(name).find((entry) => entry.step === step);
          return row ? [[name, row.value]] : [];
        }),
      ),
      samples: store.samples(step).map(({ prompt, completion, reward }) => ({ prompt, completion, reward })),
    }));
  } finally {
    store.close();
  }
}

describe('a Tinker server restart between forward_backward and optim_step', () => {
  it('an RL run completes with the uninterrupted run’s metrics, samples and weights', async () => {
    const previousKey = process.env.TINKER_API_KEY;
    process.env.TINKER_API_KEY = apiKey;
    try {
      const runsDir = mkdtempSync(join(tmpdir(), 'tinker-restart-'));
      const plain = await restartableServer();
      const plainRun = await train(config('plain', runsDir, plain.url));

      const restarted = await restartableServer();
      let optimSteps = 0;
      let restarts = 0;
      restarted.proxy.beforeForward = async (path) => {
        if (!path.endsWith('/optim_step') || ++optimSteps !== 2) return;
        // Step 2's optim_step is held here until its forward_backward's result reached the client.
        const forwardBackward = restarted.proxy.envelopes.filter((entry) =>
          entry.path.endsWith('/forward_backward'),
        );
        const last = forwardBackward.at(-1)!.requestId;
        while (!restarted.proxy.settled.has(last)) await sleep(5);
        await restarted.restart();
        restarts++;
      };
      const run = await train(config('restarted', runsDir, restarted.url));
      expect(restarts).toBe(1);
      expect(run.steps).toBe(3);
      // The new server saw the gap, refused the step, and the client replayed it.
      expect(restarted.log.join('\n')).toMatch(/restored model .*:train:0 \(1 optimizer steps/);
      expect(restarted.log.join('\n')).toMatch(/seq_ids \d+\.\.\d+ were lost in a restart/);
      // Distinct optim_step futures (a retried POST gets its first future again): 3 steps + the refused one.
      expect(futuresOf(restarted.proxy, '/optim_step')).toBe(4);

      // Optimizer steps: the server's count (get_info of the restored model) equals the client's.
      const state = durableState(restarted.stateDir);
      const info = await getInfo(restarted.url, state.meta.modelId);
      expect(info.body.optimizer_steps).toBe(3);
      expect(state.meta.optimizerSteps).toBe(3);

      // Metrics (all but wall-clock ones) and samples of every step: samples equal, metrics within 1e-5
      // relative. Not bit-equal even without a restart: the server batches concurrent asample requests
      // when they overlap (sample-batcher.ts), which changes float32 rounding (seen: entropy 1e-6 apart).
      const expected = runRecord(plainRun.runDir, 3);
      const actual = runRecord(run.runDir, 3);
      expect(expected[2].samples).toHaveLength(16);
      // The restarted step (2) has a gradient, so a lost or doubled one would show.
      expect(expected[2].metrics['train/grad_norm']).toBeGreaterThan(0.1);
      for (let step = 0; step <= 3; step++) {
        expect(actual[step].samples).toEqual(expected[step].samples);
        expect(Object.keys(actual[step].metrics).sort()).toEqual(Object.keys(expected[step].metrics).sort());
        for (const [name, value] of Object.entries(expected[step].metrics)) {
          const close = Math.abs(actual[step].metrics[name] - value) <= 1e-5 * Math.max(1, Math.abs(value));
          expect([step, name, close ? value : actual[step].metrics[name]]).toEqual([step, name, value]);
        }
      }
      // Weights and Adam state after step 3 (the servers' durable states): max |Δ| over every parameter.
      const a = readCheckpoint(join(durableState(plain.stateDir).dir, 'checkpoint'));
      const b = readCheckpoint(join(state.dir, 'checkpoint'));
      expect(b.optimizer?.step).toBe(3);
      expect(a.optimizer?.step).toBe(3);
      let maxDelta = 0;
      for (const [name, values] of a.weights) {
        const other = b.weights.get(name)!;
        for (let i = 0; i < values.length; i++) maxDelta = Math.max(maxDelta, Math.abs(values[i] - other[i]));
      }
      expect(maxDelta).toBeLessThanOrEqual(1e-5);
    } finally {
      if (previousKey === undefined) delete process.env.TINKER_API_KEY;
      else process.env.TINKER_API_KEY = previousKey;
    }
  }, 120_000);

  const data: Datum[] = [{ tokens: [1, 40, 41, 42, 43, 44, 45], weights: [0, 0.5, -1, 0.25, -0.75, 1] }];

  it('a retried optim_step that completed before the restart gets its stored result, never a second step', async () => {
    const server = await restartableServer();
    const backend = await connect(server.url);
    server.proxy.rules = [{ path: '/optim_step', occurrence: 1, fault: { kind: 'drop-after' } }];
    let optimPosts = 0;
    server.proxy.beforeForward = async (path) => {
      if (!path.endsWith('/optim_step') || ++optimPosts !== 2) return;
      // The first attempt ran (its answer was dropped); once its step is on disk, restart, then let the
      // client's retry (same idempotency key) reach the new server.
      while (
        !durableVersions(join(server.stateDir, backend.modelId, 'durable')).some(
          (dir) => readDurableVersion(dir).optimizerSteps === 1,
        )
      )
        await sleep(5);
      await server.restart();
    };
    await backend.forwardBackward(data, 'linear');
    const result = await backend.optimStep({ learningRate: 0.01 });
    expect(optimPosts).toBeGreaterThanOrEqual(2);
    expect(futuresOf(server.proxy, '/optim_step')).toBe(1);
    expect(result.step).toBe(1);
    expect((await getInfo(server.url, backend.modelId)).body.optimizer_steps).toBe(1);
    // The training goes on on the restored model.
    await backend.forwardBackward(data, 'linear');
    expect((await backend.optimStep({ learningRate: 0.01 })).step).toBe(2);
    expect((await getInfo(server.url, backend.modelId)).body.optimizer_steps).toBe(2);
  }, 60_000);

  it('a forward_backward whose future was lost in the restart is sent again; the step is then replayed', async () => {
    const server = await restartableServer();
    const backend = await connect(server.url);
    let restarts = 0;
    server.proxy.beforeForward = async (path) => {
      const forwardBackwards = futuresOf(server.proxy, '/forward_backward');
      if (!path.endsWith('/retrieve_future') || forwardBackwards !== 2 || restarts > 0) return;
      // The second forward_backward was accepted by the old server; its result is polled from the new one.
      restarts++;
      await server.restart();
    };
    const reference = await EmbeddedBackend.load(checkpoint);
    cleanups.push(async () => reference.dispose());
    for (let step = 1; step <= 2; step++) {
      const remote = await backend.forwardBackward(data, 'linear');
      const local = await reference.forwardBackward(data, 'linear');
      expect(remote.logprobs[0][2]).toBeCloseTo(local.logprobs[0][2], 4);
      expect((await backend.optimStep({ learningRate: 0.01 })).step).toBe(step);
      await reference.optimStep({ learningRate: 0.01 });
    }
    expect(restarts).toBe(1);
    // forward_backward: 2 + the one sent again + its replay; optim_step: 2 + the refused one.
    expect(futuresOf(server.proxy, '/forward_backward')).toBe(4);
    expect(futuresOf(server.proxy, '/optim_step')).toBe(3);
    expect((await getInfo(server.url, backend.modelId)).body.optimizer_steps).toBe(2);
    const probe = [[1, 40, 41, 42, 43, 44, 45, 50, 51, 52, 53]];
    const [remote] = await backend.forward(probe);
    const [local] = await reference.forward(probe);
    expect(Math.max(...remote.map((value, t) => Math.abs(value - local[t])))).toBeLessThan(1e-5);
  }, 60_000);

  it('a sampling session lost in a restart is made again (save_weights_for_sampler)', async () => {
    const server = await restartableServer();
    const backend = await connect(server.url);
    const options = { n: 2, temperature: 1, topP: 1, maxTokens: 6, seed: 3 };
    const before = await backend.sample([[1, 40, 41]], options);
    await server.restart();
    const after = await backend.sample([[1, 40, 41]], options);
    expect(after).toEqual(before);
    const saves = server.proxy.seen.filter((path) => path.endsWith('/save_weights_for_sampler'));
    expect(saves).toHaveLength(2);
  }, 60_000);
});
