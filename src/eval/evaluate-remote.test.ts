// `curricula eval --policy openai:URL` measures a model behind an OpenAI-compatible server: greedy decoding
// over HTTP (curricula serve --openai, demo-cold) gives the same pass@1 per task and difficulty as the
// in-process evaluation of the same checkpoint.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { connectRemotePolicy, readTokenizer } from '../backends/openai/policy-spec.ts';
import { parseTaskSpec } from '../cli/task-spec.ts';
import { loadEmbeddedPolicy } from '../policy/parallel-factory.ts';
import { buildServer } from '../server/app.ts';
import { evaluateCheckpoint } from './evaluate-checkpoint.ts';

const checkpoint = resolve(import.meta.dirname, '../../examples/checkpoints/demo-cold');
let app: FastifyInstance;
let url: string;

beforeAll(async () => {
  app = await buildServer({
    protocols: ['openai'],
    context: {
      checkpoint,
      modelName: 'demo-cold',
      loadPolicy: () => loadEmbeddedPolicy(checkpoint, 1),
      stateDir: mkdtempSync(join(tmpdir(), 'curricula-eval-remote-')),
    },
  });
  url = await app.listen({ host: '127.0.0.1', port: 0 });
});

afterAll(async () => {
  await app?.close();
});

it('greedy pass@1 over HTTP equals the in-process evaluation of the same checkpoint', async () => {
  const common = {
    tasks: parseTaskSpec('addition:3-4,modular-chain:2'),
    samples: 1,
    problemsPerDifficulty: 6,
    temperature: 0,
    seed: 3,
  };
  const local = await evaluateCheckpoint({ ...common, checkpoint, workers: 1 });
  const spec = `openai:${url}#demo-cold`;
  const remote = await evaluateCheckpoint({
    ...common,
    policy: {
      label: spec,
      connect: () => connectRemotePolicy(spec, { tokenizer: readTokenizer(checkpoint) }),
    },
  });
  expect(remote.checkpoint).toBe(spec);
  // a mix where the model solves some problems and fails others, so that equality says something
  expect(local.summary.overall.passAt1).toBeGreaterThan(0);
  expect(local.summary.overall.passAt1).toBeLessThan(1);
  expect(remote.summary.metrics).toEqual(local.summary.metrics);
  expect(remote.summary.overall.problems).toBe(18);
  await expect(
    evaluateCheckpoint({
      ...common,
      policy: {
        label: 'x',
        connect: () => connectRemotePolicy('nope:x', { tokenizer: readTokenizer(undefined) }),
      },
    }),
  ).rejects.toThrow(/unknown policy scheme 'nope'; known: openai/);
});
