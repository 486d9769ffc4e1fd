// The remote bench's OpenAI part on the real server and checkpoint, small: every request answered, the
// latency quantiles ordered, the tokens counted from the responses, the server's batching visible.
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { benchOpenAiServe, quantile } from './serve-bench.ts';

describe('bench remote --only openai', () => {
  it('quantile is the nearest rank', () => {
    const values = [5, 1, 4, 2, 3, 10, 9, 8, 7, 6];
    expect(quantile(values, 0.5)).toBe(5);
    expect(quantile(values, 0.9)).toBe(9);
    expect(quantile(values, 0.99)).toBe(10);
    expect(quantile([7], 0.99)).toBe(7);
  });

  it('sends concurrent requests to a real served checkpoint and reports them', async () => {
    let progressed = 0;
    const result = await benchOpenAiServe({
      checkpoint: resolve(import.meta.dirname, '../../examples/checkpoints/demo-cold'),
      requests: 24,
      maxTokens: 3,
      workers: 1,
      onProgress: (done) => {
        progressed = done;
      },
    });
    expect(result.errors).toBe(0);
    expect(progressed).toBe(24);
    // Each request gets 1..3 completion tokens (EOS may end one early).
    expect(result.completionTokens).toBeGreaterThanOrEqual(24);
    expect(result.completionTokens).toBeLessThanOrEqual(72);
    const { p50, p90, p99, max } = result.latencyMs;
    expect(p50).toBeGreaterThan(0);
    expect(p50).toBeLessThanOrEqual(p90);
    expect(p90).toBeLessThanOrEqual(p99);
    expect(p99).toBeLessThanOrEqual(max);
    expect(max).toBeLessThanOrEqual(result.wallSeconds * 1000 + 1);
    // Unseeded requests arriving together share sample calls.
    expect(result.sampleCalls).toBeGreaterThanOrEqual(1);
    expect(result.sampleCalls).toBeLessThan(24);
  });
});
