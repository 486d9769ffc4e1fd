// `curricula serve --tinker` request bounds (src/server/limits.ts), on the real server and checkpoint:
// asample over the rows or memory limit and forward_backward over the token limit are 400s naming the
// limit, the server serving on; concurrent asample requests are merged only up to the same bounds.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { datum, request, startTestServer, type TestServer } from '../../testing/server/tinker/test-server.ts';

let server: TestServer;

beforeAll(async () => {
  // 12 MiB: one row at the full context costs ~0.8 MiB (512 KiB of KV cache × 1.5, plus a step).
  server = await startTestServer({
    limits: { maxRows: 64, samplingBytes: 12 * 1024 ** 2, maxTrainTokens: 500 },
  });
});

afterAll(async () => {
  await server?.close();
});

const sample = (numSamples: number, maxTokens = 4, seed = 1) => ({
  base_model: 'demo-cold',
  num_samples: numSamples,
  prompt: { chunks: [{ tokens: [1, 40, 41] }] },
  sampling_params: { max_tokens: maxTokens, seed, temperature: 1, top_p: 1 },
});

describe('tinker request bounds', () => {
  it('refuses asample over the rows or the memory limit with a 400 naming it, and serves the next', async () => {
    const { client } = server;
    const rows = await client.post('asample', sample(100_000));
    expect(rows.status).toBe(400);
    expect(((await rows.json()) as any).error.message).toMatch(
      /100000 completions .*limit is 64 per request/,
    );
    const bytes = await client.post('asample', sample(32));
    expect(bytes.status).toBe(400);
    expect(((await bytes.json()) as any).error.message).toMatch(
      /needs about \d+ MiB of model memory.*limit is 12 MiB per request/,
    );
    const ok = await client.sample(sample(4));
    expect(ok.sequences).toHaveLength(4);
  });

  it('merges concurrent asample requests only up to the bounds', async () => {
    const { client } = server;
    const stats = server.app.tinkerSampleStats!;
    const before = { ...stats };
    // 8 requests × 4 rows ≈ 8 × 3.3 MiB: over 12 MiB together, so more than one call, fewer than 8.
    const envelopes = await Promise.all(
      Array.from({ length: 8 }, (_, index) => client.json('asample', sample(4, 4, index))),
    );
    for (const envelope of envelopes) {
      const result = await client.retrieve(envelope.request_id, 'application/json');
      expect(result.error).toBeUndefined();
      expect(result.sequences).toHaveLength(4);
    }
    const calls = stats.sampleCalls - before.sampleCalls;
    expect(calls).toBeGreaterThan(1);
    expect(calls).toBeLessThan(8);
  });

  it('refuses forward_backward over the token limit with a 400 naming it', async () => {
    const modelId = await server.newModel();
    const long = Array.from({ length: 100 }, (_, index) => 1 + (index % 90));
    const data = Array.from({ length: 6 }, () => datum(long, { weights: long.slice(1).map(() => 1) }));
    const response = await server.client.postProtobuf(request(modelId, 1, 'cross_entropy', data));
    expect(response.status).toBe(400);
    expect(((await response.json()) as any).error.message).toMatch(
      /forward_backward: this request has 600 tokens; the server's limit is 500 tokens per request/,
    );
    const small = await server.client.forwardBackward(request(modelId, 2, 'cross_entropy', data.slice(0, 2)));
    expect(small.lossFnOutputs).toHaveLength(2);
  });
});
