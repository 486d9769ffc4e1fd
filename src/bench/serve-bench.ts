// `curricula bench remote --only openai`: concurrent sampling requests against `curricula serve --openai`
// (issue 11's target: 200 concurrent requests, no errors, p50/p99 reported). The server is started in this
// process on loopback (port 0) with the given checkpoint; the requests are plain `fetch` POSTs to
// /v1/completions, all sent at once, each with its own prompt and no seed (so the server may batch them,
// which is what it does for an RL rollout). Latency is per request, from send to the parsed body.
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { loadEmbeddedPolicy } from '../policy/parallel-factory.ts';
import type { WorkerCount } from '../policy/parallel-options.ts';
import { buildServer } from '../server/app.ts';
import { median } from './median.ts';

export interface ServeBenchOptions {
  /** Model directory to serve. */
  checkpoint: string;
  /** Concurrent requests (all in flight at once). */
  requests: number;
  /** max_tokens of each request. */
  maxTokens: number;
  /** policy.workers of the served model. */
  workers: WorkerCount;
  /** Called as responses arrive. */
  onProgress?: (done: number, total: number) => void;
}

export interface ServeBenchResult {
  requests: number;
  errors: number;
  /** The first few error messages, for the report. */
  errorSamples: string[];
  wallSeconds: number;
  latencyMs: { p50: number; p90: number; p99: number; max: number };
  completionTokens: number;
  tokensPerSecond: number;
  requestsPerSecond: number;
  /** policy.sample calls the server made for the requests (batching: ≤ requests). */
  sampleCalls: number;
  peakRssMB: number;
}

/** The p-quantile (0..1) of a non-empty list, nearest rank. */
export function quantile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))];
}

interface ServedStats {
  openAiModels?: Map<string, { queue: { stats: { sampleCalls: number } } }>;
}

export async function benchOpenAiServe(options: ServeBenchOptions): Promise<ServeBenchResult> {
  const stateDir = mkdtempSync(join(tmpdir(), 'curricula-bench-serve-'));
  const modelName = basename(options.checkpoint);
  const app = await buildServer({
    protocols: ['openai'],
    context: {
      checkpoint: options.checkpoint,
      modelName,
      loadPolicy: () => loadEmbeddedPolicy(options.checkpoint, options.workers),
      stateDir,
    },
  });
  let peakRss = process.memoryUsage().rss;
  const rssTimer = setInterval(() => {
    peakRss = Math.max(peakRss, process.memoryUsage().rss);
  }, 50);
  try {
    await app.listen({ host: '127.0.0.1', port: 0 });
    const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/v1/completions`;
    const post = (prompt: string) =>
      fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: modelName, prompt, max_tokens: options.maxTokens, temperature: 1 }),
      });
    // Loads the model and warms the path, outside the timing.
    const warm = await post('Add: 1+1=');
    if (!warm.ok) throw new Error(`warm-up request failed: ${warm.status} ${await warm.text()}`);
    await warm.json();
    const stats = (app as unknown as ServedStats).openAiModels?.get(modelName)?.queue.stats;
    const callsBefore = stats?.sampleCalls ?? 0;
    const latencies: number[] = [];
    const errors: string[] = [];
    let completionTokens = 0;
    let done = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: options.requests }, async (_, index) => {
        const sent = performance.now();
        try {
          const response = await post(`Add: ${index}+${(index * 7) % 100}=`);
          const body = (await response.json()) as {
            usage?: { completion_tokens?: number };
            error?: { message: string };
          };
          if (!response.ok) throw new Error(`${response.status} ${body.error?.message ?? ''}`);
          completionTokens += body.usage?.completion_tokens ?? 0;
          latencies.push(performance.now() - sent);
        } catch (error) {
          errors.push((error as Error).message);
        }
        options.onProgress?.(++done, options.requests);
      }),
    );
    const wallSeconds = (performance.now() - started) / 1000;
    const measured = latencies.length > 0 ? latencies : [Number.NaN];
    return {
      requests: options.requests,
      errors: errors.length,
      errorSamples: errors.slice(0, 5),
      wallSeconds,
      latencyMs: {
        p50: median(measured),
        p90: quantile(measured, 0.9),
        p99: quantile(measured, 0.99),
        max: Math.max(...measured),
      },
      completionTokens,
      tokensPerSecond: completionTokens / wallSeconds,
      requestsPerSecond: latencies.length / wallSeconds,
      sampleCalls: (stats?.sampleCalls ?? 0) - callsBefore,
      peakRssMB: peakRss / 2 ** 20,
    };
  } finally {
    clearInterval(rssTimer);
    await app.close();
    rmSync(stateDir, { recursive: true, force: true });
  }
}
