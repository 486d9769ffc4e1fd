// OpenAiSamplingBackend against the real `curricula serve --openai` (demo-cold checkpoint, loopback),
// directly and through the fault proxy. The expected tokens come from the in-process policy with the
// seeds the client derives, so every comparison is against an independent run of the model.
import { mkdtempSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UserError } from '../../core/errors.ts';
import type { SampleOptions } from '../../core/policy.ts';
import { Rng } from '../../core/rng.ts';
import { EmbeddedBackend } from '../../policy/embedded-backend.ts';
import { loadEmbeddedPolicy } from '../../policy/parallel-factory.ts';
import { buildServer } from '../../server/app.ts';
import { type FaultProxy, startFaultProxy } from '../../testing/fault-proxy.ts';
import { requireCapabilities } from './capabilities.ts';
import { type OpenAiBackendOptions, OpenAiSamplingBackend } from './sampling-backend.ts';

const checkpoint = resolve(import.meta.dirname, '../../../examples/checkpoints/demo-cold');
const apiKey = 'client-test-key';

let app: FastifyInstance;
let url: string;
let proxy: FaultProxy;
let reference: EmbeddedBackend;
let prompts: number[][];
const options: SampleOptions = { n: 2, temperature: 1, topP: 1, maxTokens: 8, stop: [], seed: 42 };

/** What the server must return: each prompt sampled alone with the seed the client derives for it. */
async function expected(sampleOptions: SampleOptions) {
  const seeds = new Rng(sampleOptions.seed);
  const result = [];
  for (const prompt of prompts)
    result.push((await reference.sample([prompt], { ...sampleOptions, seed: seeds.int(0, 2 ** 31 - 1) }))[0]);
  return result;
}

function expectAllClose(actual: readonly number[], expected: readonly number[]): void {
  expect(actual).toHaveLength(expected.length);
  for (let index = 0; index < actual.length; index++) expect(actual[index]).toBeCloseTo(expected[index], 4);
}

function connect(overrides: Partial<OpenAiBackendOptions> = {}) {
  return OpenAiSamplingBackend.connect({
    baseUrl: url,
    apiKey,
    model: 'demo-cold',
    tokenizer: reference.tokenizer,
    sleep: async () => {},
    ...overrides,
  });
}

function serverStats() {
  return app.openAiModels!.get('demo-cold').queue.stats;
}

beforeAll(async () => {
  app = await buildServer({
    protocols: ['openai'],
    apiKey,
    context: {
      checkpoint,
      modelName: 'demo-cold',
      loadPolicy: () => loadEmbeddedPolicy(checkpoint, 1),
      stateDir: mkdtempSync(join(tmpdir(), 'curricula-openai-client-')),
    },
  });
  url = await app.listen({ host: '127.0.0.1', port: 0 });
  proxy = await startFaultProxy(url, { filter: (path) => path === '/inference/v1/generate' });
  reference = await EmbeddedBackend.load(checkpoint);
  prompts = ['Add: 3+4=', 'Add: 10+5=', 'Sort: cab'].map((text) => [
    reference.tokenizer.bos,
    ...reference.tokenizer.encode(text),
  ]);
});

afterAll(async () => {
  await proxy?.close();
  await app?.close();
  reference?.dispose();
});

describe('OpenAiSamplingBackend', () => {
  it('probes the server: token ids, log-probs, prompt log-probs, generate route, context length', async () => {
    const backend = await connect();
    expect(backend.capabilities).toMatchObject({
      model: 'demo-cold',
      models: ['demo-cold'],
      contextLength: 128,
      tokenIdPrompts: true,
      tokenIds: true,
      logprobs: true,
      promptLogprobs: true,
      generate: true,
    });
    expect(backend.contextLength).toBe(128);
  });

  it('samples exactly what the in-process policy samples with the same seeds, over both routes', async () => {
    const want = await expected(options);
    for (const route of ['generate', 'completions'] as const) {
      const backend = await connect({ route });
      const got = await backend.sample(prompts, options);
      expect(got.map((samples) => samples.map((sample) => sample.tokens))).toEqual(
        want.map((samples) => samples.map((sample) => sample.tokens)),
      );
      for (const [promptIndex, samples] of got.entries()) {
        for (const [sampleIndex, sample] of samples.entries()) {
          const local = want[promptIndex][sampleIndex];
          expect(sample.text).toBe(local.text);
          expect(sample.stopReason).toBe(local.stopReason);
          expectAllClose(sample.logprobs, local.logprobs);
        }
      }
    }
  });

  it('forward uses prompt_logprobs and equals policy.forward', async () => {
    const backend = await connect();
    const sequences = prompts.map((prompt) => [...prompt, ...reference.tokenizer.encode('17')]);
    const got = await backend.forward(sequences);
    const want = await reference.forward(sequences);
    for (const [index, row] of got.entries()) expectAllClose(row, want[index]);
  });

  it('is sampling-only: forwardBackward, optimStep and save throw a UserError', async () => {
    const backend = await connect();
    await expect(backend.forwardBackward([], 'linear')).rejects.toThrow(UserError);
    await expect(backend.optimStep({ learningRate: 1e-3 })).rejects.toThrow(/samples only/);
    await expect(backend.save('/tmp/x')).rejects.toThrow(UserError);
  });

  it('fails early when the server lacks what the loss needs', async () => {
    // A server without prompt_logprobs: the real server with that field taken out of its answers.
    const withoutPromptLogprobs: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      const text = await response.text();
      const stripped = text.replaceAll('"prompt_logprobs":', '"prompt_logprobs_removed":');
      return new Response(stripped, { status: response.status, headers: response.headers });
    };
    await expect(
      connect({ fetch: withoutPromptLogprobs, needs: ['promptLogprobs'], neededBy: "loss 'x'" }),
    ).rejects.toThrow(/cannot return prompt log-probs .*which loss 'x' needs/);
    expect(() =>
      requireCapabilities(
        {
          model: 'm',
          models: [],
          contextLength: null,
          tokenIdPrompts: true,
          tokenIds: true,
          logprobs: false,
          promptLogprobs: true,
          generate: true,
        },
        ['logprobs'],
        'http://x',
        "loss 'ppo'",
      ),
    ).toThrow(/per-token log-probs of sampled tokens, which loss 'ppo' needs/);
  });

  it('completes through 500, 429 with Retry-After, dropped connections, a slow answer and a timeout; no duplicated work', async () => {
    const delays: number[] = [];
    const backend = await connect({
      baseUrl: proxy.url,
      route: 'generate',
      timeoutMs: 1_000,
      sleep: async (ms) => {
        delays.push(ms);
      },
    });
    const want = await expected(options);
    const before = serverStats().sampleRequests;
    proxy.records.length = 0;
    proxy.script.push(
      { kind: 'status', status: 500 },
      { kind: 'status', status: 429, retryAfterSeconds: 2 },
      { kind: 'drop-before' },
      { kind: 'drop-mid-body' },
      { kind: 'delay', ms: 50 },
      { kind: 'delay', ms: 1_500 },
    );
    const got = await backend.sample(prompts, options);
    expect(got.map((samples) => samples.map((sample) => sample.tokens))).toEqual(
      want.map((samples) => samples.map((sample) => sample.tokens)),
    );
    expect(proxy.script).toEqual([]);
    expect(delays).toContain(2_000);
    expect(delays).toHaveLength(5);
    // The timed-out request reaches the server after its 1.5 s delay, once the client has moved on: wait for it.
    await new Promise((done) => setTimeout(done, 1_000));
    // The server sampled once per request that reached it: the 3 prompts, plus the answer lost mid-body and the
    // timed-out one; the 500, the 429 and the drop never reached it, and nothing was sent twice otherwise.
    const forwarded = proxy.records.filter((record) => record.forwarded).length;
    expect(forwarded).toBe(prompts.length + 2);
    expect(serverStats().sampleRequests - before).toBe(forwarded);
  });

  it('does not retry a 4xx, and names the URL when the server is down', async () => {
    const backend = await connect();
    const attempts = backend.http.attempts;
    backend.model = 'no-such-model';
    await expect(backend.sample([prompts[0]], options)).rejects.toThrow(/HTTP 404/);
    expect(backend.http.attempts - attempts).toBe(1);

    // a port that was just free: nothing listens there
    const closed = createServer();
    await new Promise<void>((done) => closed.listen(0, '127.0.0.1', done));
    const { port } = closed.address() as AddressInfo;
    await new Promise((done) => closed.close(done));
    const down = connect({ baseUrl: `http://127.0.0.1:${port}` });
    await expect(down).rejects.toThrow(
      new RegExp(
        `GET http://127\\.0\\.0\\.1:${port}/v1/models: fetch failed \\(ECONNREFUSED\\) \\(gave up after 3 attempts\\)`,
      ),
    );
  });

  it('loads new weights through vLLM load_lora_adapter, SGLang update_weights_from_disk and vLLM disk transfer', async () => {
    // A checkpoint one optimiser step away from demo-cold, so that a reload is visible in the log-probs.
    const sequence = [...prompts[0], ...reference.tokenizer.encode('99')];
    const changed = await EmbeddedBackend.load(checkpoint);
    await changed.forwardBackward(
      [{ tokens: sequence, weights: sequence.slice(1).map(() => 1) }],
      'cross_entropy',
    );
    await changed.optimStep({ learningRate: 0.05 });
    const changedDir = mkdtempSync(join(tmpdir(), 'curricula-openai-changed-'));
    await changed.save(changedDir);
    const [changedScores] = await changed.forward([sequence]);
    const [originalScores] = await reference.forward([sequence]);
    changed.dispose();
    expect(
      Math.abs(changedScores[0] - originalScores[0]) +
        Math.abs(changedScores.at(-1)! - originalScores.at(-1)!),
    ).toBeGreaterThan(1e-2);

    const lora = await connect({ weightUpdate: 'vllm-lora' });
    await lora.updateWeights(changedDir, 'step-7');
    expect(lora.model).toBe('step-7');
    expectAllClose((await lora.forward([sequence]))[0], changedScores);
    const base = await connect();
    expectAllClose((await base.forward([sequence]))[0], originalScores);

    const sglang = await connect({ weightUpdate: 'sglang-disk' });
    await sglang.updateWeights(changedDir, 'ignored');
    expect(sglang.model).toBe('demo-cold');
    expectAllClose((await sglang.forward([sequence]))[0], changedScores);
    await expect(sglang.updateWeights(mkdtempSync(join(tmpdir(), 'not-a-checkpoint-')), 'x')).rejects.toThrow(
      /HTTP 400 .*not a checkpoint directory/,
    );

    const disk = await connect({ weightUpdate: 'vllm-disk' });
    await disk.updateWeights(checkpoint, 'ignored');
    expect(disk.model).toBe('demo-cold');
    expectAllClose((await disk.forward([sequence]))[0], originalScores);
    await expect(disk.updateWeights(mkdtempSync(join(tmpdir(), 'not-a-checkpoint-')), 'x')).rejects.toThrow(
      /update_weights: HTTP 400 .*not a checkpoint directory/,
    );
    const outOfOrder = await fetch(`${url}/update_weights`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey}` },
      body: JSON.stringify({ update_info: { path: checkpoint } }),
    });
    expect(outOfOrder.status).toBe(400);
    const none = await connect();
    await expect(none.updateWeights(checkpoint, 'x')).rejects.toThrow(/weightUpdate 'none'/);
  });
});
