// `train` with policy.backend tinker against the real `curricula serve --tinker` (in process, loopback,
// server workers 1): a 2-step RL run completes, and its sampled completions, rewards and metrics equal the
// in-process run's with policy.workers 2 at the same seed. Two prompts per sample call (batchSize 2): the
// client seeds prompt p's asample with the p-th draw of Rng(seed), as the worker-parallel backend seeds
// prompt p's own Rng, and the server samples each request's prompt from Rng(its seed), batched or not.
// Log-probs differ by float32 rounding only (the in-process forward splits the batch over two replicas,
// the server's does not).
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RunStore } from '../../../runs/run-store.ts';
import {
  apiKey,
  baseModel,
  smallRunConfig,
  startTinkerServer,
} from '../../../testing/backends/tinker/client/test-server.ts';
import { train } from '../../../training/rl/train.ts';

let app: FastifyInstance;
let url: string;
const previousKey = process.env.TINKER_API_KEY;

beforeAll(async () => {
  ({ app, url } = await startTinkerServer());
  process.env.TINKER_API_KEY = apiKey;
});

afterAll(async () => {
  if (previousKey === undefined) delete process.env.TINKER_API_KEY;
  else process.env.TINKER_API_KEY = previousKey;
  await app?.close();
});

function config(name: string, runsDir: string, policy: Record<string, unknown>, steps = 2, batchSize = 1) {
  return smallRunConfig(
    name,
    runsDir,
    policy,
    { steps, batchSize, learningRate: 0.003 },
    {
      // Every sample of a step is logged, so that the runs' completions and rewards can be compared.
      log: { samplesPerStep: batchSize * 8 },
      // A checkpoint after every step, so that a resume starts from step 1's weights, not step 0's.
      checkpoint: { latestEvery: 1 },
    },
  );
}

/** Metrics of each step without wall-clock ones (perf/*, time). */
function stepMetrics(runDir: string, last = 2): Record<string, number>[] {
  const store = RunStore.read(runDir);
  try {
    const names = store.keys().filter((name) => !name.startsWith('perf/') && !name.includes('seconds'));
    const steps = Array.from({ length: last + 1 }, (_, step) => step);
    return steps.map((step) =>
      Object.fromEntries(
        names.flatMap((name) => {
          const row = store.series(name).find((entry) => entry.step === step);
          return row ? [[name, row.value]] : [];
        }),
      ),
    );
  } finally {
    store.close();
  }
}

/** The logged samples of one step: prompt, completion, reward, reason. */
function samples(runDir: string, step: number) {
  const store = RunStore.read(runDir);
  try {
    return store
      .samples(step)
      .map(({ prompt, completion, reward, reason }) => ({ prompt, completion, reward, reason }));
  } finally {
    store.close();
  }
}

describe('curricula train with policy.backend tinker', () => {
  it('a 2-step RL run over HTTP samples and scores what an in-process workers-2 run does at the same seed', async () => {
    const runsDir = mkdtempSync(join(tmpdir(), 'train-over-tinker-'));
    const local = await train(config('local', runsDir, { workers: 2 }, 2, 2));
    const remote = await train(
      config('remote', runsDir, { workers: 1, backend: 'tinker', tinker: { url, baseModel } }, 2, 2),
    );
    expect(remote.steps).toBe(2);
    for (const step of [1, 2]) {
      const localSamples = samples(local.runDir, step);
      expect(localSamples).toHaveLength(16);
      // Two different prompts, several different completions: the comparison is not vacuous.
      expect(new Set(localSamples.map((sample) => sample.prompt)).size).toBe(2);
      expect(new Set(localSamples.map((sample) => sample.completion)).size).toBeGreaterThan(2);
      expect(samples(remote.runDir, step)).toEqual(localSamples);
    }
    const localMetrics = stepMetrics(local.runDir);
    const remoteMetrics = stepMetrics(remote.runDir);
    expect(Object.keys(remoteMetrics[2]).sort()).toEqual(Object.keys(localMetrics[2]).sort());
    // Step 1 learns (mixed rewards, a non-zero gradient), so step 2 samples from changed weights.
    expect(localMetrics[1]['train/grad_norm']).toBeGreaterThan(0.1);
    expect(localMetrics[1]['reward/std']).toBeGreaterThan(0);
    expect(Object.keys(localMetrics[1])).toContain('reward/mean');
    for (let step = 0; step <= 2; step++) {
      for (const [name, value] of Object.entries(localMetrics[step])) {
        const remoteValue = remoteMetrics[step][name];
        const agrees = Math.abs(remoteValue - value) <= 1e-5 * Math.max(1, Math.abs(value));
        expect([step, name, agrees ? value : remoteValue]).toEqual([step, name, value]);
      }
    }
    // The run's checkpoint records where the weights are (on the server), not a local copy.
    const stored = JSON.parse(readFileSync(join(remote.runDir, 'config.json'), 'utf8'));
    expect(stored.policy).toMatchObject({ backend: 'tinker', tinker: { url, baseModel } });
    expect(JSON.stringify(stored)).not.toContain(apiKey);
  });

  it('resume: a run stopped after step 1 and resumed (load_weights with Adam state) equals the uninterrupted run', async () => {
    const runsDir = mkdtempSync(join(tmpdir(), 'train-over-tinker-resume-'));
    const policy = { workers: 1, backend: 'tinker', tinker: { url, baseModel } };
    // 3 steps, stopped after 1: step 2 samples from the loaded weights, and step 3 from weights that
    // step 2's Adam update moved through the loaded moments (step 2's own gradient is zero here).
    const whole = await train(config('whole', runsDir, policy, 3));
    const stopped = await train(config('parts', runsDir, policy, 3), { stopAfter: 1 });
    expect(stopped.steps).toBe(1);
    const resumed = await train(null, { resume: stopped.runDir });
    expect(resumed.steps).toBe(3);
    const wholeMetrics = stepMetrics(whole.runDir, 3);
    const resumedMetrics = stepMetrics(resumed.runDir, 3);
    for (const step of [2, 3]) {
      for (const [name, value] of Object.entries(wholeMetrics[step])) {
        expect([step, name, resumedMetrics[step][name]]).toEqual([step, name, expect.closeTo(value, 4)]);
      }
    }
  });

  it('a Tinker server that is down at start: one clear error naming the URL, nothing written', async () => {
    const runsDir = mkdtempSync(join(tmpdir(), 'train-over-tinker-down-'));
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const down = `tinker://127.0.0.1:${(probe.address() as AddressInfo).port}`;
    await new Promise((resolve) => probe.close(resolve));
    await expect(
      train(config('down', runsDir, { workers: 1, backend: 'tinker', tinker: { url: down, baseModel } })),
    ).rejects.toThrow(
      /^cannot reach the Tinker server at http:\/\/127\.0\.0\.1:\d+ \(ECONNREFUSED\); is it running\?$/,
    );
    expect(readdirSync(runsDir)).toEqual([]);
  });

  it('config mistakes: an unknown backend, a tinker backend without its block', async () => {
    const runsDir = mkdtempSync(join(tmpdir(), 'train-over-tinker-bad-'));
    await expect(train(config('bad', runsDir, { backend: 'vllm' }))).rejects.toThrow(
      "unknown policy backend 'vllm'; known: embedded, tinker",
    );
    await expect(train(config('bad', runsDir, { tinker: { url, baseModel } }))).rejects.toThrow(
      'policy.tinker is set but policy.backend is not tinker',
    );
    await expect(train(config('bad', runsDir, { backend: 'tinker' }))).rejects.toThrow(
      'policy.backend tinker needs a policy.tinker block with url and baseModel',
    );
    expect(() =>
      config('bad', runsDir, { backend: 'tinker', tinker: { url, baseModel, apiKey: 'tml-x' } }),
    ).toThrow(/apiKey/);
    expect(readdirSync(runsDir)).toEqual([]);
  });
});
