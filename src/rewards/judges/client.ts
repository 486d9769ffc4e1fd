// A judge behind any OpenAI-compatible endpoint (issue 31 item 1): `curricula serve --openai` with an
// embedded checkpoint, vLLM, SGLang, a hosted API. One call = one prompt, sent as a chat message
// (`api: chat`, POST /v1/chat/completions) or as raw text (`api: completions`, POST /v1/completions: a
// model without a chat template). Around each call, in this order:
//   1. the verdict cache (cache.ts): a request asked before is answered from it, without a call;
//   2. the limits (rate-limit.ts): calls in flight, requests and tokens per minute;
//   3. the transport (core/http-client.ts): per-attempt timeout, retries with backoff on 429, 408, 5xx,
//      timeouts and dropped connections (Retry-After honoured), no retry on other 4xx.
// Usage (prompt and completion tokens) is counted from the server's `usage` (an estimate of characters / 4
// when it sends none, counted apart). With `topLogprobs`, the reply's per-token top alternatives come
// back too (verdict probabilities, probabilities.ts). The API key is read from the environment variable
// the options name, never from the config, and is not part of the cache key.
import { UserError } from '../../core/errors.ts';
import { OpenAiHttpClient } from '../../core/http-client.ts';
import { Rng } from '../../core/rng.ts';
import { cacheKey, VerdictCache } from './cache.ts';
import type { JudgeEndpointOptions } from './options.ts';
import { RateLimiter } from './rate-limit.ts';
import { type JudgeReply, parseReply } from './reply.ts';

/** A judge's answer to one prompt. */
export interface JudgeAnswer extends JudgeReply {
  /** Answered from the verdict cache (no call made). */
  cached: boolean;
}

/** Counts since the client was made (metrics and benches read them). */
export interface JudgeUsage {
  calls: number;
  cached: number;
  failedCalls: number;
  promptTokens: number;
  completionTokens: number;
  /** Calls whose server sent no usage (their tokens are estimates). */
  estimatedUsage: number;
  /** Time the calls spent waiting for the rate limits, in ms. */
  rateLimitedMs: number;
}

/** Something that answers a judge prompt (the HTTP client below; tests may pass their own). */
export interface JudgeTransport {
  readonly label: string;
  ask(prompt: string, options?: { topLogprobs?: number }): Promise<JudgeAnswer>;
  /** Stores an answer whose verdict parsed, so the same prompt is not asked again. */
  remember(prompt: string, answer: JudgeAnswer, topLogprobs?: number): void;
  readonly usage: JudgeUsage;
  /** Keep the verdict cache in this file from now on. */
  useCacheFile(path: string): void;
  close(): void;
}

/** Usage counts of a transport that has made no call yet. */
export function emptyUsage(): JudgeUsage {
  return {
    calls: 0,
    cached: 0,
    failedCalls: 0,
    promptTokens: 0,
    completionTokens: 0,
    estimatedUsage: 0,
    rateLimitedMs: 0,
  };
}

export class JudgeClient implements JudgeTransport {
  readonly label: string;
  readonly usage: JudgeUsage = emptyUsage();
  private readonly http: OpenAiHttpClient;
  private readonly limiter: RateLimiter;
  private readonly cache: VerdictCache | null;

  constructor(
    private readonly options: JudgeEndpointOptions,
    inject: { fetch?: typeof fetch; sleep?: (ms: number) => Promise<void>; env?: NodeJS.ProcessEnv } = {},
  ) {
    const env = inject.env ?? process.env;
    const apiKey = options.apiKeyEnv ? env[options.apiKeyEnv] : undefined;
    if (options.apiKeyEnv && !apiKey) {
      throw new UserError(`judge: environment variable ${options.apiKeyEnv} (apiKeyEnv) is not set`);
    }
    this.http = new OpenAiHttpClient({
      baseUrl: options.endpoint,
      apiKey,
      rng: new Rng(options.seed ?? 0),
      fetch: inject.fetch,
      sleep: inject.sleep,
      timeoutMs: options.timeoutMs,
      maxRetries: options.maxRetries,
      maxConcurrency: options.concurrency,
    });
    this.limiter = new RateLimiter({
      concurrency: options.concurrency,
      requestsPerMinute: options.requestsPerMinute,
      tokensPerMinute: options.tokensPerMinute,
      sleep: inject.sleep,
    });
    this.cache = options.cache && cacheable(options) ? new VerdictCache() : null;
    this.label = `${this.http.baseUrl}${options.model ? `#${options.model}` : ''}`;
  }

  useCacheFile(path: string): void {
    this.cache?.useFile(path);
  }

  async ask(prompt: string, { topLogprobs }: { topLogprobs?: number } = {}): Promise<JudgeAnswer> {
    const { path, body } = this.request(prompt, topLogprobs);
    const key = this.cache ? cacheKey({ endpoint: this.http.baseUrl, path, body }) : null;
    const hit = key ? this.cache!.get(key) : null;
    if (hit !== null) {
      this.usage.cached++;
      return { ...(JSON.parse(hit) as JudgeReply), cached: true };
    }
    const estimate = Math.ceil(prompt.length / 4) + this.options.maxTokens;
    const ticket = await this.limiter.acquire(estimate);
    this.usage.rateLimitedMs = this.limiter.waitedMs;
    try {
      this.usage.calls++;
      const response = await this.http.post(path, body).catch((error: unknown) => {
        this.usage.failedCalls++;
        throw error;
      });
      const reply = parseReply(response.body, this.options.api, `POST ${this.http.baseUrl}${path}`);
      if (reply.usage) {
        this.usage.promptTokens += reply.usage.promptTokens;
        this.usage.completionTokens += reply.usage.completionTokens;
        ticket.settle(reply.usage.promptTokens + reply.usage.completionTokens);
      } else {
        this.usage.estimatedUsage++;
        this.usage.promptTokens += Math.ceil(prompt.length / 4);
        this.usage.completionTokens += Math.ceil(reply.text.length / 4);
      }
      return { ...reply, cached: false };
    } finally {
      ticket.release();
    }
  }

  /** Stores a reply that parsed (the reward calls this once the verdict is known to be well-formed). */
  remember(prompt: string, answer: JudgeAnswer, topLogprobs?: number): void {
    if (!this.cache || answer.cached) return;
    const { path, body } = this.request(prompt, topLogprobs);
    const { cached: _, ...reply } = answer;
    this.cache.put(cacheKey({ endpoint: this.http.baseUrl, path, body }), JSON.stringify(reply));
  }

  /** Cache counts (hits, misses, stored), or null without a cache. */
  cacheCounts(): { hits: number; misses: number; stored: number } | null {
    return this.cache ? { ...this.cache.counts } : null;
  }

  close(): void {
    this.cache?.close();
  }

  private request(prompt: string, topLogprobs: number | undefined): { path: string; body: object } {
    const { model, temperature, maxTokens, seed, api } = this.options;
    const common = {
      ...(model ? { model } : {}),
      temperature,
      max_tokens: maxTokens,
      ...(seed === undefined ? {} : { seed }),
    };
    if (api === 'completions') {
      return {
        path: '/v1/completions',
        body: { ...common, prompt, ...(topLogprobs ? { logprobs: topLogprobs } : {}) },
      };
    }
    return {
      path: '/v1/chat/completions',
      body: {
        ...common,
        messages: [{ role: 'user', content: prompt }],
        ...(topLogprobs ? { logprobs: true, top_logprobs: topLogprobs } : {}),
      },
    };
  }
}

/** Replies are verdicts, not draws, only at temperature 0 or with a fixed seed. */
function cacheable(options: JudgeEndpointOptions): boolean {
  return options.temperature === 0 || options.seed !== undefined;
}
