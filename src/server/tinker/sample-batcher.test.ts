// `curricula serve --tinker` batching of asample requests (sample-batcher.ts), on the real server and
// checkpoint: concurrent requests with the same options are sampled in fewer policy calls than requests,
// and each request still gets exactly what it would get alone — its own seed's draw (checked against an
// independent in-process sampler, one prompt at a time). A request that cannot be sampled (a prompt
// longer than the context) fails alone; the others in its batch are answered.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../testing/server/tinker/test-server.ts';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});

afterAll(async () => {
  await server?.close();
});

const prompts = [
  [1, 40, 41, 42],
  [1, 43, 44],
  [1, 50, 51, 52, 53],
  [1, 45],
  [1, 60, 61, 62],
  [1, 47, 48],
];
const seeds = [3, 1_000_003, 77, 4_000_000_000, 5, 12];

function body(prompt: number[], seed: number) {
  return {
    base_model: 'demo-cold',
    num_samples: 3,
    prompt: { chunks: [{ tokens: prompt }] },
    sampling_params: { max_tokens: 10, seed, temperature: 1, top_p: 1 },
  };
}

/** Sends every body at once; each request's sampled sequences, or its error. */
async function sendTogether(bodies: unknown[]) {
  const { client } = server;
  const envelopes = await Promise.all(bodies.map((item) => client.json('asample', item)));
  return Promise.all(
    envelopes.map(async (envelope) => {
      // A failed future is `{error, category}` (HTTP 200, as Tinker).
      const result = await client.retrieve(envelope.request_id, 'application/json');
      return result.error === undefined
        ? { response: result }
        : { error: `${result.category}: ${result.error}` };
    }),
  );
}

describe('asample batching', () => {
  it('samples concurrent requests in fewer calls, each from its own seed as if alone', async () => {
    const stats = server.app.tinkerSampleStats!;
    await sendTogether([body([1, 40], 1)]); // loads the base model's sampler
    const before = { ...stats };
    const results = await sendTogether(prompts.map((prompt, i) => body(prompt, seeds[i])));
    expect(stats.requests - before.requests).toBe(prompts.length);
    expect(stats.sampleCalls - before.sampleCalls).toBeLessThan(prompts.length);
    for (const [i, prompt] of prompts.entries()) {
      const [alone] = await server.reference.sample([prompt], {
        n: 3,
        maxTokens: 10,
        temperature: 1,
        topP: 1,
        seed: seeds[i],
      });
      const sequences = results[i].response.sequences as { tokens: number[]; logprobs: number[] }[];
      expect([i, sequences.map((s) => s.tokens)]).toEqual([i, alone.map((s) => s.tokens)]);
      for (const [k, sequence] of sequences.entries()) {
        for (const [t, value] of sequence.logprobs.entries())
          expect(value).toBeCloseTo(alone[k].logprobs[t], 5);
      }
    }
  });

  it('a request that cannot be sampled fails alone; the rest of its batch is answered', async () => {
    const tooLong = [1, ...new Array(200).fill(40)];
    const results = await sendTogether([body(prompts[0], 9), body(tooLong, 9), body(prompts[1], 9)]);
    expect(results[1].error).toMatch(/^user: .*context/i);
    for (const i of [0, 2]) {
      const [alone] = await server.reference.sample([prompts[i === 0 ? 0 : 1]], {
        n: 3,
        maxTokens: 10,
        temperature: 1,
        topP: 1,
        seed: 9,
      });
      expect(results[i].response.sequences.map((s: { tokens: number[] }) => s.tokens)).toEqual(
        alone.map((s) => s.tokens),
      );
    }
  });
});
