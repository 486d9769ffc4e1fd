// Multi-turn episodes over the Tinker protocol (issue 30 item 5): `train` with rollout.environment and
// policy.backend tinker against the real `curricula serve --tinker` serving a cold start that calls the
// calculator (examples/checkpoints/tool-calc-cold). Each turn is an asample with the tools' stop strings;
// each member is sent to forward_backward as one datum whose weights are zero on the tool outputs (the
// environment's tokens) — so the run over HTTP samples, masks and trains what an in-process run does: the
// same episodes (turn by turn, as stored), rewards and metrics at the same seed.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
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

const toolCold = resolve(import.meta.dirname, '../../../../examples/checkpoints/tool-calc-cold');
let app: FastifyInstance;
let url: string;
const previousKey = process.env.TINKER_API_KEY;

beforeAll(async () => {
  ({ app, url } = await startTinkerServer(0, { checkpoint: toolCold }));
  process.env.TINKER_API_KEY = apiKey;
});

afterAll(async () => {
  if (previousKey === undefined) delete process.env.TINKER_API_KEY;
  else process.env.TINKER_API_KEY = previousKey;
  await app?.close();
});

const config = (name: string, runsDir: string, policy: Record<string, unknown>) =>
  smallRunConfig(
    name,
    runsDir,
    policy,
    { steps: 2, batchSize: 2, learningRate: 0.0001 },
    {
      init: { checkpoint: toolCold },
      tasks: [{ task: 'addition', difficulties: [6, 7, 8] }],
      rollout: {
        groupSize: 8,
        maxTokens: 64,
        environment: { name: 'tag-tools', tools: ['calc'], limits: { maxTurns: 3 } },
      },
      log: { samplesPerStep: 16 },
    },
  );

function stored(runDir: string, step: number) {
  const store = RunStore.read(runDir);
  try {
    return store
      .samples(step)
      .map(({ prompt, completion, reward, episode }) => ({ prompt, completion, reward, episode }));
  } finally {
    store.close();
  }
}

function metric(runDir: string, name: string, step: number): number | undefined {
  const store = RunStore.read(runDir);
  try {
    return store.series(name).find((row) => row.step === step)?.value;
  } finally {
    store.close();
  }
}

describe('multi-turn episodes over Tinker', () => {
  it('a 2-step run with tool calls samples, masks and scores what the in-process run does', async () => {
    const runsDir = mkdtempSync(join(tmpdir(), 'train-over-tinker-episodes-'));
    const local = await train(config('local', runsDir, { workers: 2 }));
    const remote = await train(
      config('remote', runsDir, { workers: 1, backend: 'tinker', tinker: { url, baseModel } }),
    );
    let calls = 0;
    for (const step of [1, 2]) {
      const samples = stored(local.runDir, step);
      expect(samples).toHaveLength(16);
      const multiTurn = samples.filter((sample) => (sample.episode?.turns.length ?? 0) > 1);
      calls += multiTurn.length;
      expect(stored(remote.runDir, step)).toEqual(samples);
      for (const name of ['env/tool_calls_mean', 'env/turns_mean', 'reward/mean']) {
        expect([step, name, metric(remote.runDir, name, step)]).toEqual([
          step,
          name,
          metric(local.runDir, name, step),
        ]);
      }
      expect(metric(remote.runDir, 'train/grad_norm', step)).toBeCloseTo(
        metric(local.runDir, 'train/grad_norm', step)!,
        4,
      );
    }
    // The comparison covers episodes with a tool call and its output (masked), not only single turns.
    expect(calls).toBeGreaterThan(0);
  }, 120_000);
});
