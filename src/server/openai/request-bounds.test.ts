// `curricula serve --openai` against requests over its memory bounds (issue 26, item 3): a 400 (or 413
// for a body) naming the limit, in the OpenAI error shape, and the next request is served; the limits are
// the server's options.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { normal, post, prompt, type Served, serve } from '../../testing/server/openai/serve.ts';

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
