// `curricula serve --openai` against bad clients (issue 26, item 3): requests over the memory bounds are
// a 400 naming the limit; a failure inside the model (injected, and a real out-of-bounds wasm allocation)
// leaves the next request working; weight reloads under concurrent seeded sampling never fail a request,
// and every response matches exactly one weight version.
import { cpSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PolicyBackend } from '../../core/policy.ts';
import { EmbeddedBackend } from '../../policy/embedded-backend.ts';
import { ParallelEmbeddedBackend } from '../../policy/parallel-backend.ts';
import { runtimeGeneration, tf, wasmRuntimeHealthy } from '../../policy/runtime.ts';
import { buildServer } from '../app.ts';
import type { RequestLimits } from '../limits.ts';

const checkpoint = resolve(import.meta.dirname, '../../../examples/checkpoints/demo-cold');
const prompt = 'Add: 12+7=';

interface Served {
  app: FastifyInstance;
  url: string;
  loads: () => number;
}

/** The real server on loopback; `wrap` may replace each loaded policy (fault injection). */
async function serve(
  options: { limits?: Partial<RequestLimits>; wrap?: (policy: EmbeddedBackend) => PolicyBackend } = {},
): Promise<Served> {
  let loads = 0;
  const load = async (dir: string): Promise<PolicyBackend> => {
    loads++;
    const policy = await EmbeddedBackend.load(dir);
    return options.wrap ? options.wrap(policy) : policy;
  };
  const app = await buildServer({
    protocols: ['openai'],
    context: {
      checkpoint,
      modelName: 'demo-cold',
      loadPolicy: () => load(checkpoint),
      loadPolicyFrom: load,
      stateDir: mkdtempSync(join(tmpdir(), 'curricula-openai-robust-')),
      limits: options.limits,
    },
  });
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  return { app, url, loads: () => loads };
}

async function post(url: string, path: string, body: unknown): Promise<{ status: number; body: any }> {
  const response = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // plain-text answers (load_lora_adapter)
  }
  return { status: response.status, body: parsed };
}

const normal = { prompt, max_tokens: 6, seed: 3, return_token_ids: true };

describe('request bounds', () => {
  let server: Served;
  beforeAll(async () => {
    server = await serve();
  });
  afterAll(async () => {
    await server?.app.close();
  });

  it('refuses 20,000 prompts with a 400 that names the limit, and serves the next request', async () => {
    const prompts = Array.from({ length: 20_000 }, (_, index) => `Add: ${index % 100}+1=`);
    const started = Date.now();
    const big = await post(server.url, '/v1/completions', { prompt: prompts, max_tokens: 8 });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(big.status).toBe(400);
    expect(big.body.error.type).toBe('invalid_request_error');
    expect(big.body.error.message).toMatch(/limit is 4096 per request/);
    const after = await post(server.url, '/v1/completions', normal);
    expect(after.status).toBe(200);
    expect(after.body.choices[0].token_ids.length).toBeGreaterThan(0);
  });

  it('prices rows × tokens against the memory budget: n 64 × 30 prompts at full context is refused', async () => {
    // 1,920 rows × 128 columns × 4 KiB × 1.5 ≈ 1.5 GiB > 1 GiB; the same prompts with n 8 fit.
    const prompts = Array.from({ length: 30 }, () => prompt);
    const over = await post(server.url, '/v1/completions', { prompt: prompts, n: 64 });
    expect(over.status).toBe(400);
    expect(over.body.error.message).toMatch(/needs about 1\.\d GiB of model memory.*limit is 1\.0 GiB/);
    const chat = await post(server.url, '/v1/chat/completions', {
      messages: [{ role: 'user', content: prompt }],
      n: 64,
      max_tokens: 2,
    });
    expect(chat.status).toBe(200);
    const generate = await post(server.url, '/inference/v1/generate', {
      token_ids: [1, 2, 3],
      sampling_params: { n: 64, max_tokens: 2 },
    });
    expect(generate.status).toBe(200);
  });
});

it('a smaller budget refuses what the default takes (the limit is the server option)', async () => {
  const server = await serve({
    limits: { samplingBytes: 32 * 1024 ** 2, maxRows: 100, samplingBodyBytes: 1024 * 1024 },
  });
  try {
    const rows = await post(server.url, '/v1/completions', {
      prompt: [prompt, prompt],
      n: 51,
      max_tokens: 1,
    });
    expect(rows.status).toBe(400);
    expect(rows.body.error.message).toMatch(/102 completions .*limit is 100 per request/);
    const bytes = await post(server.url, '/v1/completions', { prompt, n: 64, max_tokens: 1 });
    expect(bytes.status).toBe(400);
    expect(bytes.body.error.message).toMatch(/limit is 32 MiB per request/);
    // Sampling bodies: 413 beyond samplingBodyBytes (1 MiB here), in the OpenAI error shape.
    const body = await post(server.url, '/v1/completions', { prompt: 'x'.repeat(1_100_000) });
    expect(body.status).toBe(413);
    expect(body.body.error.message).toMatch(/body/i);
    const render = await post(server.url, '/v1/chat/completions/render', {
      messages: [{ role: 'user', content: prompt }],
      n: 64,
    });
    expect(render.status).toBe(400);
    expect((await post(server.url, '/v1/completions', normal)).status).toBe(200);
  } finally {
    await server.app.close();
  }
});

describe('a failure inside the model does not poison the server', () => {
  it('injected: the policy breaks for good on one request; the next request is served by a reloaded one', async () => {
    // The trigger (n = 7) makes the policy fail and stay broken, as tfjs-wasm does after a heap overrun.
    const server = await serve({
      wrap: (policy) => {
        let broken = false;
        const sample = policy.sample.bind(policy);
        const forward = policy.forward.bind(policy);
        policy.sample = async (prompts, options) => {
          if (options.n === 7) broken = true;
          if (broken) throw new RangeError('memory access out of bounds');
          return sample(prompts, options);
        };
        // A second trigger in scoring (prompt_logprobs): token 97 in a prompt.
        policy.forward = async (sequences) => {
          if (sequences.some((sequence) => sequence.includes(97))) broken = true;
          if (broken) throw new RangeError('memory access out of bounds');
          return forward(sequences);
        };
        return policy;
      },
    });
    try {
      const expected = await post(server.url, '/v1/completions', normal);
      expect(expected.status).toBe(200);
      // With prompt_logprobs: the scoring of the failed request must not end the process either.
      const failed = await post(server.url, '/v1/completions', {
        prompt,
        n: 7,
        max_tokens: 2,
        prompt_logprobs: 1,
      });
      expect(failed.status).toBe(500);
      expect(failed.body.error.message).toMatch(/memory access out of bounds/);
      const after = await post(server.url, '/v1/completions', normal);
      expect(after.status).toBe(200);
      expect(after.body.choices).toEqual(expected.body.choices);
      expect(server.loads()).toBe(2);
      expect(server.app.openAiModels!.get('demo-cold').queue.stats.rebuilds).toBe(1);
      // Scoring fails while the sample is queued: a 500, and the process lives on.
      const scoring = await post(server.url, '/v1/completions', {
        prompt: [1, 97, 5],
        max_tokens: 2,
        prompt_logprobs: 1,
      });
      expect(scoring.status).toBe(500);
      const last = await post(server.url, '/v1/completions', normal);
      expect(last.status).toBe(200);
      expect(last.body.choices).toEqual(expected.body.choices);
      expect(server.loads()).toBe(3);
    } finally {
      await server.app.close();
    }
  });

  it('real: a tensor past the 4 GiB wasm heap fails that request only; the next gets the same tokens as before', async () => {
    // On the trigger the policy asks tfjs-wasm for a 4 GiB + 128 KiB tensor (a broadcast of two small
    // ones, computed by a stock wasm kernel): unguarded, malloc takes the size modulo 2^32 (128 KiB) and
    // the kernel writes on past the end of the heap ("memory access out of bounds"), over the weights and
    // the allocator's state. Guarded (runtime.ts), it is a WasmHeapError and nothing is written.
    const server = await serve({
      wrap: (policy) => {
        const sample = policy.sample.bind(policy);
        policy.sample = async (prompts, options) => {
          if (options.n === 7) {
            tf.tidy(() =>
              tf.maximum(tf.zeros([32_768, 1], 'int32'), tf.zeros([1, 32_769], 'int32')).dataSync(),
            );
          }
          return sample(prompts, options);
        };
        return policy;
      },
    });
    try {
      const expected = await post(server.url, '/v1/completions', normal);
      expect(expected.status).toBe(200);
      const failed = await post(server.url, '/v1/completions', { prompt, n: 7, max_tokens: 2 });
      expect(failed.status).toBe(500);
      const after = await post(server.url, '/v1/completions', normal);
      expect(after.status).toBe(200);
      expect(after.body.choices).toEqual(expected.body.choices);
      // Other models of the process still compute right.
      const reference = await EmbeddedBackend.load(checkpoint);
      const [forward] = await reference.forward([[1, 2, 3, 4]]);
      reference.dispose();
      expect(forward.every(Number.isFinite)).toBe(true);
    } finally {
      await server.app.close();
    }
  });
});

it('a policy worker that dies (--workers 2) fails its request; the next is served by new workers', async () => {
  let loads = 0;
  const app = await buildServer({
    protocols: ['openai'],
    context: {
      checkpoint,
      modelName: 'demo-cold',
      // The first policy's worker 0 exits inside sample (the process-level failure of a worker thread).
      loadPolicy: () =>
        ParallelEmbeddedBackend.load(checkpoint, {
          workers: 2,
          ...(loads++ === 0 ? { fault: { worker: 0, method: 'sample', kind: 'exit' as const } } : {}),
        }),
      stateDir: mkdtempSync(join(tmpdir(), 'curricula-openai-workers-')),
    },
  });
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  try {
    const failed = await post(url, '/v1/completions', normal);
    expect(failed.status).toBe(500);
    const after = await post(url, '/v1/completions', normal);
    expect(after.status).toBe(200);
    expect(after.body.choices[0].token_ids.length).toBeGreaterThan(0);
    expect(loads).toBe(2);
  } finally {
    await app.close();
  }
});

describe('weight reloads', () => {
  it('update_weights_from_disk names model_path (not lora_path) when the path is bad', async () => {
    const server = await serve();
    try {
      const bad = await post(server.url, '/update_weights_from_disk', {
        model_path: mkdtempSync(join(tmpdir(), 'not-a-checkpoint-')),
      });
      expect(bad.status).toBe(400);
      expect(bad.body.error.message).toMatch(/^model_path '.*' is not a checkpoint directory/);
      expect(bad.body.error.message).not.toMatch(/lora_path/);
      const vllm = await post(server.url, '/start_weight_update', {});
      expect(vllm.status).toBe(200);
      const badVllm = await post(server.url, '/update_weights', { update_info: { path: '/nonexistent' } });
      expect(badVllm.status).toBe(400);
      expect(badVllm.body.error.message).toMatch(/^update_info\.path '/);
    } finally {
      await server.app.close();
    }
  });

  it('reloads every 150 ms under concurrent seeded sampling: 0 failures, each response one version', async () => {
    // Version B: demo-cold after one optimizer step (other weights, same config and tokenizer).
    const dirB = mkdtempSync(join(tmpdir(), 'curricula-version-b-'));
    const trained = await EmbeddedBackend.load(checkpoint);
    const tokens = [trained.tokenizer.bos, ...trained.tokenizer.encode(prompt)];
    await trained.forwardBackward([{ tokens, weights: tokens.slice(1).map(() => 1) }], 'cross_entropy');
    await trained.optimStep({ learningRate: 0.05 });
    await trained.save(dirB);
    trained.dispose();
    const dirA = mkdtempSync(join(tmpdir(), 'curricula-version-a-'));
    cpSync(checkpoint, dirA, { recursive: true });

    const server = await serve();
    try {
      const requests = Array.from({ length: 6 }, (_, index) => ({
        prompt: `Add: ${index}+${index}=`,
        n: 2,
        max_tokens: 6,
        seed: 100 + index,
        return_token_ids: true,
        prompt_logprobs: 1,
      }));
      const answer = (body: any) =>
        JSON.stringify(body.choices.map((choice: any) => [choice.token_ids, choice.prompt_logprobs]));
      const versions: Array<Map<number, string>> = [];
      for (const dir of [dirA, dirB]) {
        expect((await post(server.url, '/update_weights_from_disk', { model_path: dir })).status).toBe(200);
        const answers = new Map<number, string>();
        for (const [index, body] of requests.entries()) {
          const response = await post(server.url, '/v1/completions', body);
          expect(response.status).toBe(200);
          answers.set(index, answer(response.body));
        }
        versions.push(answers);
      }
      expect(versions[0].get(0)).not.toBe(versions[1].get(0));

      let stop = false;
      let reloads = 0;
      const reloader = (async () => {
        while (!stop) {
          const response = await post(server.url, '/update_weights_from_disk', {
            model_path: reloads % 2 === 0 ? dirA : dirB,
          });
          expect(response.status).toBe(200);
          reloads++;
          await new Promise((resume) => setTimeout(resume, 150));
        }
      })();
      const failures: string[] = [];
      const seen = [0, 0];
      let sent = 0;
      const client = async (start: number) => {
        for (let index = start; !stop; index++) {
          const which = index % requests.length;
          sent++;
          const response = await post(server.url, '/v1/completions', requests[which]);
          if (response.status !== 200) {
            failures.push(`${response.status} ${JSON.stringify(response.body)}`);
            continue;
          }
          const got = answer(response.body);
          const matches = versions.filter((version) => version.get(which) === got).length;
          if (matches !== 1) failures.push(`request ${which}: matches ${matches} versions`);
          else seen[versions[0].get(which) === got ? 0 : 1]++;
        }
      };
      const clients = Array.from({ length: 8 }, (_, index) => client(index));
      await new Promise((resume) => setTimeout(resume, 4_000));
      stop = true;
      await Promise.all([reloader, ...clients]);
      expect({ sent, failures: failures.length, first: failures.slice(0, 3) }).toEqual({
        sent,
        failures: 0,
        first: [],
      });
      if (process.env.ROBUSTNESS_LOG) console.log({ sent, reloads, seen, failures: failures.length });
      expect(reloads).toBeGreaterThanOrEqual(5);
      expect(sent).toBeGreaterThanOrEqual(20);
      expect(seen[0]).toBeGreaterThan(0);
      expect(seen[1]).toBeGreaterThan(0);
      // Every replaced model was closed once its last request ended.
      expect(server.app.openAiModels!.retiredOpen).toBe(0);
    } finally {
      await server.app.close();
    }
  }, 30_000);
});

it('a corrupted wasm heap: the server replaces the backend and reloads the model for the next request', async () => {
  // What an unguarded overrun leaves behind, made directly: the whole heap overwritten. The model, the
  // allocator and tfjs's own tables are garbage, so the backend itself must be replaced (runtime.ts).
  const generation = runtimeGeneration();
  const server = await serve({
    wrap: (policy) => {
      const sample = policy.sample.bind(policy);
      policy.sample = async (prompts, options) => {
        if (options.n === 7) {
          const heap = (tf.backend() as unknown as { wasm: { HEAPU8: Uint8Array } }).wasm.HEAPU8;
          heap.fill(0xff);
          throw new Error('memory access out of bounds');
        }
        return sample(prompts, options);
      };
      return policy;
    },
  });
  try {
    const expected = await post(server.url, '/v1/completions', normal);
    expect(expected.status).toBe(200);
    const failed = await post(server.url, '/v1/completions', { prompt, n: 7, max_tokens: 2 });
    expect(failed.status).toBe(500);
    expect(wasmRuntimeHealthy()).toBe(true);
    expect(runtimeGeneration()).toBe(generation + 1);
    const after = await post(server.url, '/v1/completions', normal);
    expect(after.status).toBe(200);
    expect(after.body.choices).toEqual(expected.body.choices);
  } finally {
    await server.app.close();
  }
});
