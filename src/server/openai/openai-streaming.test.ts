// `curricula serve --openai` driven by the official `openai` npm client: streaming (server-sent events
// read by the client's own stream parser, reassembled to the non-streamed answer of the same seed) and the
// top log-probs (up to 20 per token, ranked, consistent with the sampled token's log-prob).
import type { FastifyInstance } from 'fastify';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prompt, serve } from '../../testing/server/openai/serve.ts';

let app: FastifyInstance;
let url: string;
let client: OpenAI;

type Extra = Record<string, unknown>;
function completion(params: Extra): Promise<OpenAI.Completion & Extra> {
  return client.completions.create({
    model: 'demo-cold',
    ...params,
  } as unknown as OpenAI.CompletionCreateParamsNonStreaming) as never;
}

beforeAll(async () => {
  ({ app, url } = await serve());
  client = new OpenAI({ baseURL: `${url}/v1`, apiKey: 'unused', maxRetries: 0 });
});

afterAll(async () => {
  await app?.close();
});

describe('curricula serve --openai: streaming and top log-probs', () => {
  it('returns the most likely tokens: top_logprobs up to 20 (chat) and logprobs up to 5 (completions)', async () => {
    const chat = await client.chat.completions.create({
      model: 'demo-cold',
      messages: [{ role: 'user', content: prompt }],
      max_tokens: 6,
      seed: 4,
      logprobs: true,
      top_logprobs: 20,
    });
    const content = chat.choices[0].logprobs?.content ?? [];
    expect(content.length).toBeGreaterThan(0);
    for (const entry of content) {
      expect(entry.top_logprobs).toHaveLength(20);
      const values = entry.top_logprobs.map((top) => top.logprob);
      expect([...values].sort((a, b) => b - a)).toEqual(values);
      expect(values.reduce((sum, value) => sum + Math.exp(value), 0)).toBeLessThanOrEqual(1 + 1e-9);
      // The sampled token, when it is among the 20, has the same log-prob there.
      const same = entry.top_logprobs.find((top) => top.token === entry.token);
      if (same) expect(same.logprob).toBeCloseTo(entry.logprob, 6);
      expect(values[0]).toBeGreaterThanOrEqual(entry.logprob - 1e-9);
    }
    // Unseeded concurrent requests batch by options: one that wants top tokens never shares a call that
    // gives none.
    const messages = [{ role: 'user' as const, content: prompt }];
    const [, wanted] = await Promise.all([
      client.chat.completions.create({ model: 'demo-cold', messages, max_tokens: 4 }),
      client.chat.completions.create({
        model: 'demo-cold',
        messages,
        max_tokens: 4,
        logprobs: true,
        top_logprobs: 5,
      }),
    ]);
    expect(wanted.choices[0].logprobs?.content?.every((entry) => entry.top_logprobs.length === 5)).toBe(true);
    const legacy = await completion({ prompt, max_tokens: 4, seed: 4, logprobs: 3 });
    const tops = legacy.choices[0].logprobs?.top_logprobs as Record<string, number>[];
    expect(tops.every((top) => Object.keys(top).length === 3)).toBe(true);
    await expect(
      client.chat.completions.create({
        model: 'demo-cold',
        messages: [{ role: 'user', content: prompt }],
        logprobs: true,
        top_logprobs: 21,
      }),
    ).rejects.toMatchObject({ status: 400 });
  });

  it('streams chat and completions as server-sent events the official client reads, token by token', async () => {
    const messages = [{ role: 'user' as const, content: prompt }];
    const whole = await client.chat.completions.create({
      model: 'demo-cold',
      messages,
      max_tokens: 12,
      seed: 9,
      n: 2,
    });
    const stream = await client.chat.completions.create({
      model: 'demo-cold',
      messages,
      max_tokens: 12,
      seed: 9,
      n: 2,
      stream: true,
      stream_options: { include_usage: true },
      logprobs: true,
      top_logprobs: 1,
    });
    const texts = ['', ''];
    const finish: (string | null)[] = [null, null];
    let chunks = 0;
    let usageChunk: OpenAI.CompletionUsage | undefined;
    let logprobEntries = 0;
    for await (const chunk of stream) {
      expect(chunk.object).toBe('chat.completion.chunk');
      if (chunk.usage) usageChunk = chunk.usage;
      for (const choice of chunk.choices) {
        texts[choice.index] += choice.delta.content ?? '';
        if (choice.finish_reason) finish[choice.index] = choice.finish_reason;
        logprobEntries += choice.logprobs?.content?.length ?? 0;
      }
      chunks++;
    }
    expect(texts).toEqual(whole.choices.map((choice) => choice.message.content));
    expect(finish).toEqual(whole.choices.map((choice) => choice.finish_reason));
    expect(usageChunk).toEqual(whole.usage);
    expect(chunks).toBeGreaterThan(texts[0].length / 2);
    expect(logprobEntries).toBeGreaterThan(0);

    const plain = await completion({ prompt, max_tokens: 8, seed: 3, stop: ['\n'] });
    const pieces: string[] = [];
    const completionStream = await client.completions.create({
      model: 'demo-cold',
      prompt,
      max_tokens: 8,
      seed: 3,
      stop: ['\n'],
      stream: true,
    });
    for await (const chunk of completionStream) pieces.push(...chunk.choices.map((choice) => choice.text));
    expect(pieces.join('')).toBe(plain.choices[0].text);
    const raw = await fetch(`${url}/v1/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ prompt, max_tokens: 2, stream: true }),
    });
    expect(raw.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect((await raw.text()).trimEnd().endsWith('data: [DONE]')).toBe(true);
  });
});
