// The options every judge reward shares: where the judge is, how it is sampled, its limits, its cache and
// what a failed verdict scores. Defaults: temperature 0 (a verdict, cacheable), 512 tokens of reasoning and
// verdict, 60 s per attempt, 4 retries, 8 calls in flight (verl's reward-loop limiter defaults to
// unlimited rpm/tpm; so do we), the cache on.
import { z } from 'zod';

export const judgeEndpointSchema = z.strictObject({
  /**
   * Server root, e.g. http://127.0.0.1:8000 (`curricula serve --openai`, vLLM, a hosted API), or `policy`:
   * the policy being trained is the judge (self-judging, policy-judge.ts).
   */
  endpoint: z.union([
    z
      .url({ protocol: /^https?$/ })
      // credentials in the URL would travel into every error message and stored reason
      .refine(
        (url) => !/^https?:\/\/[^/]*@/.test(url),
        'no credentials in the URL: name them with apiKeyEnv',
      ),
    // the policy being trained judges its own rollouts (policy-judge.ts; RL training only)
    z.literal('policy'),
  ]),
  /** The served model's name (`model` in the request); absent: the server's default. */
  model: z.string().min(1).optional(),
  /** The environment variable that holds the API key (never the key itself). */
  apiKeyEnv: z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'an environment variable name')
    .optional(),
  /** chat: POST /v1/chat/completions (the server's chat template); completions: raw text. */
  api: z.enum(['chat', 'completions']).default('chat'),
  temperature: z.number().min(0).max(2).default(0),
  /** Tokens the judge may write: its reasoning and the verdict. */
  maxTokens: z.number().int().positive().max(32_768).default(512),
  /** Sent as the request's seed (vLLM honours it); with temperature > 0 it makes replies cacheable. */
  seed: z.number().int().nonnegative().optional(),
  /** Per-attempt timeout in ms. */
  timeoutMs: z.number().int().positive().default(60_000),
  /** Retries after the first attempt, on 429, 408, 5xx, timeouts and dropped connections. */
  maxRetries: z.number().int().nonnegative().max(20).default(4),
  /** Calls in flight at once. */
  concurrency: z.number().int().positive().max(1024).default(8),
  requestsPerMinute: z.number().positive().optional(),
  tokensPerMinute: z.number().positive().optional(),
  /** Keep replies in the content-addressed verdict cache (used at temperature 0 or with a seed). */
  cache: z.boolean().default(true),
});

export type JudgeEndpointOptions = z.infer<typeof judgeEndpointSchema>;

/**
 * What a failed or malformed verdict does (issue 31 item 4), applied by the RL loop's grading-failures
 * policy: `zero` scores it 0 in its group; `exclude` leaves it out of the group's baseline and of the batch
 * (TRL's unscorable completions; prime-rl's errored rollouts); `drop-group` leaves its whole group out
 * (ART RULER's swallow_exceptions). Counted per step either way (reward/judge_failures).
 */
export const failurePolicySchema = z.enum(['zero', 'exclude', 'drop-group']);
export type FailurePolicy = z.infer<typeof failurePolicySchema>;
