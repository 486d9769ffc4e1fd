// `curricula serve --openai` (buildServer on port 0, the real demo-cold checkpoint) driven by the official
// `openai` npm client and by raw fetch for what the client cannot send (bad JSON, no key, huge bodies).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { FastifyInstance } from 'fastify';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EmbeddedBackend } from '../../policy/embedded-backend.ts';
import { loadEmbeddedPolicy } from '../../policy/parallel-factory.ts';
import { buildServer } from '../app.ts';

const checkpoint = resolve(import.meta.dirname, '../../../examples/checkpoints/demo-cold');
const apiKey = 'test-key';
const prompt = 'Add: 12+7=';

let app: FastifyInstance;
let url: string;
let client: OpenAI;
let reference: EmbeddedBackend;

/** vLLM extension fields the typed client does not know; sent as is. */
type Extra = Record<string, unknown>;
function completion(params: Extra): Promise<OpenAI.Completion & Extra> {
  return client.completions.create({
    model: 'demo-cold',
    ...params,
  } as unknown as OpenAI.CompletionCreateParamsNonStreaming) as never;
}

function expectAllClose(actual: readonly number[], expected: readonly number[]): void {
  expect(actual).toHaveLength(expected.length);
  for (let index = 0; index < actual.length; index++) expect(actual[index]).toBeCloseTo(expected[index], 4);
}

function post(path: string, body: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey}`, ...headers },
    body,
  });
}

/** Sampled-token and prompt log-probs from the server equal the in-process policy.forward on the same tokens. */
async function checkLogprobs(temperature: number): Promise<void> {
  const response = await completion({
    temperature,
    prompt,
    n: 2,
    max_tokens: 10,
    seed: 5,
    logprobs: 1,
    return_token_ids: true,
    prompt_logprobs: 1,
  });
  const promptIds = [reference.tokenizer.bos, ...reference.tokenizer.encode(prompt)];
  for (const choice of response.choices as Array<OpenAI.CompletionChoice & Extra>) {
    const tokens = choice.token_ids as number[];
    const logprobs = choice.logprobs?.token_logprobs as number[];
    expect(logprobs).toHaveLength(tokens.length);
    for (const value of logprobs) expect(value).toBeLessThanOrEqual(0);
    const [forward] = await reference.forward([[...promptIds, ...tokens]]);
    expectAllClose(logprobs, forward.slice(promptIds.length - 1));
    const promptScores = choice.prompt_logprobs as Array<Record<string, { logprob: number }> | null>;
    expect(promptScores[0]).toBeNull();
    expectAllClose(
      promptIds
        .slice(1)
        .map((token, index) => promptScores[index + 1]?.[String(token)].logprob ?? Number.NaN),
      forward.slice(0, promptIds.length - 1),
    );
  }
}

beforeAll(async () => {
  app = await buildServer({
    protocols: ['openai'],
    apiKey,
    bodyLimit: 64 * 1024,
    context: {
      checkpoint,
      modelName: 'demo-cold',
      loadPolicy: () => loadEmbeddedPolicy(checkpoint, 1),
      stateDir: mkdtempSync(join(tmpdir(), 'curricula-openai-test-')),
    },
  });
  url = await app.listen({ host: '127.0.0.1', port: 0 });
  client = new OpenAI({ baseURL: `${url}/v1`, apiKey, maxRetries: 0 });
  reference = await EmbeddedBackend.load(checkpoint);
});

afterAll(async () => {
  await app?.close();
  reference?.dispose();
});

describe('curricula serve --openai with the openai client', () => {
  it('lists the served model with its context length', async () => {
    const models = await client.models.list();
    const served = models.data.find((model) => model.id === 'demo-cold') as OpenAI.Model & {
      max_model_len?: number;
    };
    expect(served?.max_model_len).toBe(128);
  });

  it('samples n completions with exact token ids; the same seed gives the same tokens', async () => {
    const params = { prompt, n: 3, max_tokens: 12, seed: 11, return_token_ids: true };
    const first = await completion(params);
    const second = await completion(params);
    const other = await completion({ ...params, seed: 12 });
    expect(first.choices.map((choice) => choice.index)).toEqual([0, 1, 2]);
    const ids = (response: Extra) =>
      (response.choices as Array<{ token_ids: number[] }>).map((choice) => choice.token_ids);
    expect(ids(first)).toEqual(ids(second));
    expect(ids(first)).not.toEqual(ids(other));
    for (const choice of first.choices as Array<OpenAI.CompletionChoice & Extra>) {
      const tokens = choice.token_ids as number[];
      expect(reference.tokenizer.decode(tokens)).toBe(choice.text);
      expect(choice.prompt_token_ids).toEqual([
        reference.tokenizer.bos,
        ...reference.tokenizer.encode(prompt),
      ]);
    }
    // the same tokens as the in-process policy with the same seed
    const local = await reference.sample([[reference.tokenizer.bos, ...reference.tokenizer.encode(prompt)]], {
      n: 3,
      temperature: 1,
      topP: 1,
      maxTokens: 12,
      stop: [],
      seed: 11,
    });
    expect(ids(first)).toEqual(local[0].map((sample) => sample.tokens));
    // still the same tokens when unseeded requests with the same options are in flight (they are batched, it is not)
    const [busy] = await Promise.all([
      completion(params),
      ...Array.from({ length: 6 }, () => completion({ ...params, seed: undefined })),
    ]);
    expect(ids(busy)).toEqual(ids(first));
  });

  it('returns log-probs ≤ 0 equal to policy.forward at temperature 1 (whatever the sampling temperature), and prompt_logprobs', async () => {
    for (const temperature of [1, 0.6]) await checkLogprobs(temperature);
  });

  it('stops at a stop string (removed from the text unless include_stop_str_in_output)', async () => {
    const base = { prompt, n: 1, max_tokens: 24, seed: 21, temperature: 1 };
    const free = await completion(base);
    const text = free.choices[0].text;
    const stop = text[3];
    expect(stop).toBeDefined();
    const stopped = await completion({ ...base, stop: [stop] });
    const at = text.indexOf(stop);
    expect(stopped.choices[0].finish_reason).toBe('stop');
    expect(stopped.choices[0].text).toBe(text.slice(0, at));
    expect((stopped.choices[0] as unknown as Extra).stop_reason).toBe(stop);
    const kept = await completion({ ...base, stop: [stop], include_stop_str_in_output: true });
    expect(kept.choices[0].text).toBe(text.slice(0, at + 1));
  });

  it('ends with finish_reason "length" at max_tokens', async () => {
    const response = await completion({ prompt, n: 4, max_tokens: 2, seed: 3, return_token_ids: true });
    for (const choice of response.choices as Array<OpenAI.CompletionChoice & Extra>) {
      expect(choice.finish_reason).toBe('length');
      expect(choice.token_ids).toHaveLength(2);
    }
    expect(response.usage?.completion_tokens).toBe(8);
  });

  it('chat renders the user content as the prompt: same seed, same tokens as completions; render → generate agree', async () => {
    const chat = (await client.chat.completions.create({
      model: 'demo-cold',
      messages: [{ role: 'user', content: prompt }],
      max_tokens: 10,
      seed: 9,
      logprobs: true,
      return_token_ids: true,
    } as unknown as OpenAI.ChatCompletionCreateParamsNonStreaming)) as OpenAI.ChatCompletion & Extra;
    const plain = await completion({ prompt, max_tokens: 10, seed: 9, return_token_ids: true });
    const chatChoice = chat.choices[0] as OpenAI.ChatCompletion.Choice & Extra;
    expect(chatChoice.token_ids).toEqual((plain.choices[0] as unknown as Extra).token_ids);
    expect(chatChoice.message.content).toBe(plain.choices[0].text);
    expect(chatChoice.logprobs?.content).toHaveLength((chatChoice.token_ids as number[]).length);

    const render = await post(
      '/v1/chat/completions/render',
      JSON.stringify({ messages: [{ role: 'user', content: prompt }], max_tokens: 10, seed: 9 }),
    );
    expect(render.status).toBe(200);
    const generateRequest = (await render.json()) as { token_ids: number[]; sampling_params: Extra };
    expect(generateRequest.token_ids).toEqual(chat.prompt_token_ids);
    const generated = await post('/inference/v1/generate', JSON.stringify(generateRequest));
    const body = (await generated.json()) as {
      choices: Array<{ token_ids: number[]; finish_reason: string }>;
    };
    expect(body.choices[0].token_ids).toEqual(chatChoice.token_ids);
  });

  it('answers bad requests with the right status and a JSON body, and keeps serving', async () => {
    await expect(
      new OpenAI({ baseURL: `${url}/v1`, apiKey: 'wrong', maxRetries: 0 }).models.list(),
    ).rejects.toMatchObject({ status: 401 });
    const noKey = await fetch(`${url}/v1/models`);
    expect(noKey.status).toBe(401);
    expect(((await noKey.json()) as { error: { message: string } }).error.message).toMatch(/missing API key/);

    const malformed = await post('/v1/completions', '{"prompt": "1+1=", ');
    expect(malformed.status).toBe(400);
    expect(((await malformed.json()) as Extra).error).toBeDefined();

    const huge = await post('/v1/completions', JSON.stringify({ prompt: 'x'.repeat(100_000) }));
    expect(huge.status).toBe(413);
    expect(((await huge.json()) as Extra).error).toBeDefined();

    await expect(client.completions.create({ model: 'no-such-model', prompt })).rejects.toMatchObject({
      status: 404,
    });
    await expect(completion({ prompt: 'x'.repeat(200), max_tokens: 1 })).rejects.toThrow(
      /maximum context length is 128/,
    );
    await expect(completion({ prompt, max_tokens: 120 })).rejects.toMatchObject({ status: 400 });
    await expect(completion({ prompt, n: 0 })).rejects.toThrow(/n:/);
    await expect(completion({ prompt, logprobs: 6 })).rejects.toMatchObject({ status: 400 });
    await expect(completion({ prompt: [0, 1, 500] })).rejects.toThrow(/outside the vocabulary/);
    await expect(completion({ prompt: 'ünïcödé☃' })).rejects.toMatchObject({ status: 400 });
    const stream = await post('/inference/v1/generate', JSON.stringify({ token_ids: [1, 20], stream: true }));
    expect(stream.status).toBe(400);
    expect(await stream.text()).toMatch(/stream: true is not supported by \/inference\/v1\/generate/);

    const after = await completion({ prompt, max_tokens: 2 });
    expect(after.choices).toHaveLength(1);
  });

  it('serves 200 concurrent requests without an error, batching them into few sample calls', async () => {
    const stats = app.openAiModels!.get('demo-cold').queue.stats;
    const callsBefore = stats.sampleCalls;
    const results = await Promise.allSettled(
      Array.from({ length: 200 }, (_, index) =>
        completion({ prompt: `Add: ${index}+1=`, max_tokens: 4, temperature: 1 }),
      ),
    );
    const failures = results.filter((result) => result.status === 'rejected');
    expect(failures).toEqual([]);
    const calls = stats.sampleCalls - callsBefore;
    expect(calls).toBeLessThan(50);
  });

  it('loads a checkpoint directory under a new model id (load_lora_adapter) and rejects a bad path', async () => {
    const load = await post(
      '/v1/load_lora_adapter',
      JSON.stringify({ lora_name: 'step-1', lora_path: checkpoint }),
    );
    expect(load.status).toBe(200);
    const models = await client.models.list();
    expect(models.data.map((model) => model.id)).toContain('step-1');
    const sampled = await client.completions.create({ model: 'step-1', prompt, max_tokens: 3, seed: 4 });
    const base = await client.completions.create({ model: 'demo-cold', prompt, max_tokens: 3, seed: 4 });
    expect(sampled.choices[0].text).toBe(base.choices[0].text);

    const again = await post(
      '/v1/load_lora_adapter',
      JSON.stringify({ lora_name: 'step-1', lora_path: checkpoint }),
    );
    expect(again.status).toBe(400);
    const bad = await post(
      '/v1/load_lora_adapter',
      JSON.stringify({ lora_name: 'bad', lora_path: mkdtempSync(join(tmpdir(), 'not-a-checkpoint-')) }),
    );
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { message: string } }).error.message).toMatch(
      /not a checkpoint directory/,
    );
    const unload = await post('/v1/unload_lora_adapter', JSON.stringify({ lora_name: 'step-1' }));
    expect(unload.status).toBe(200);
    await expect(client.completions.create({ model: 'step-1', prompt, max_tokens: 1 })).rejects.toMatchObject(
      { status: 404 },
    );
  });
});

it('closes the served policies when the server closes', async () => {
  const disposed: string[] = [];
  const server = await buildServer({
    protocols: ['openai'],
    context: {
      checkpoint,
      modelName: 'demo-cold',
      loadPolicy: async () => {
        const policy = await EmbeddedBackend.load(checkpoint);
        const dispose = policy.dispose.bind(policy);
        policy.dispose = () => {
          disposed.push('demo-cold');
          dispose();
        };
        return policy;
      },
      stateDir: mkdtempSync(join(tmpdir(), 'curricula-openai-close-')),
    },
  });
  const response = await server.inject({
    method: 'POST',
    url: '/v1/completions',
    payload: { prompt, max_tokens: 2 },
  });
  expect(response.statusCode).toBe(200);
  expect(disposed).toEqual([]);
  await server.close();
  expect(disposed).toEqual(['demo-cold']);
});
