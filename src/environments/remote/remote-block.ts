// The `remote` variant of the environment block (block.ts): episodes in an environment served over HTTP
// by an ORS server (ors-client.ts, remote-environment.ts). The problems still come from the run's task
// mix: each episode's task spec (POST /create) is its problem — id, task, prompt, answer, difficulty,
// category, params and metadata, never the worked solution — so curricula, selectors and evaluation work
// as for any other run, and the server grades through its tools' rewards.
import { z } from 'zod';
import { ConfigError } from '../../core/errors.ts';
import type { Tokenizer } from '../../core/policy.ts';
import type { Problem } from '../../core/problem.ts';
import { creditOptionsShape } from '../credit.ts';
import { episodeLimitsSchema } from '../limits.ts';
import { OrsClient } from './ors-client.ts';
import { RemoteEnvironment } from './remote-environment.ts';

/** The zod schema of `rollout.environment` with `name: remote` (defaults filled, unknown keys refused). */
export const remoteBlockSchema = z.strictObject({
  /** 'remote': an environment served over HTTP by an ORS server (src/environments/remote). */
  name: z.literal('remote'),
  /** The server's base URL (http or https; may carry a path prefix). */
  url: z.url({ protocol: /^https?$/ }),
  /** The environment's name on the server (one of its /list_environments). */
  env: z.string().min(1),
  /** The server's tools the policy may call (each a stop string `</name>`); empty: every tool it offers. */
  tools: z.array(z.string().min(1)).default([]),
  /** Wall-clock ms per HTTP request to the server (a tool call included). */
  timeoutMs: z.number().int().min(1).default(5000),
  /** Further attempts after a connection error, a 429 or a 5xx answer. */
  retries: z.number().int().min(0).max(10).default(2),
  /** Delay before the first retry in ms; each further one doubles it. */
  backoffMs: z.number().int().min(0).default(200),
  /** Most bytes read from one answer of the server. */
  maxResponseBytes: z.number().int().min(1024).default(1_048_576),
  /** Longer tool outputs are cut to this many characters. */
  maxOutputChars: z.number().int().min(1).default(64),
  /**
   * What trains the policy: 'environment' (each episode's return, the sum of the server's rewards) or
   * 'run' (the run's reward grading the whole completion, as with tag-tools).
   */
  reward: z.enum(['environment', 'run']).default('environment'),
  /** Turns, tokens, timeouts and the parse-error policy of each episode (src/environments/limits.ts). */
  limits: episodeLimitsSchema.default(episodeLimitsSchema.parse({})),
  // credit ('episode' | 'turn'), callFormatReward, callFormatCap: how the sampled tokens are credited (../credit.ts).
  ...creditOptionsShape,
});

/** A `remote` environment block, defaults filled. */
export type RemoteBlock = z.output<typeof remoteBlockSchema>;

/** The task spec of an episode on `problem`: the problem less its worked solution (see the file header). */
export function taskSpecOf(problem: Problem): Record<string, unknown> {
  const { solution: _solution, observationSpans: _spans, ...spec } = problem;
  return spec;
}

/** A client of the block's server with the block's limits. */
export function clientOf(block: RemoteBlock): OrsClient {
  const { timeoutMs, retries, backoffMs, maxResponseBytes } = block;
  return new OrsClient(block.url, { timeoutMs, retries, backoffMs, maxResponseBytes });
}

/** One episode's remote environment under `block`; the task spec is the problem's, or the prompt's text. */
export function remoteEnvironmentFor(
  block: RemoteBlock,
  spec: { tokenizer: Tokenizer; prompt: number[]; problem?: Problem },
): RemoteEnvironment {
  return new RemoteEnvironment({
    client: clientOf(block),
    env: block.env,
    taskSpec: spec.problem ? taskSpecOf(spec.problem) : { prompt: spec.tokenizer.decode(spec.prompt) },
    tokenizer: spec.tokenizer,
    prompt: spec.prompt,
    maxOutputChars: block.maxOutputChars,
    allowedTools: block.tools,
  });
}

/**
 * Checks at a run's start that the server answers and serves `block.env` (GET /list_environments), so a
 * wrong URL or name fails the run with one line instead of ending every episode with the same error.
 */
export async function checkRemoteServer(block: RemoteBlock): Promise<void> {
  const client = clientOf(block);
  let served: string[];
  try {
    served = await client.listEnvironments();
  } catch (error) {
    throw new ConfigError(`rollout.environment: ${(error as Error).message}`);
  }
  if (!served.some((name) => name.toLowerCase() === block.env.toLowerCase()))
    throw new ConfigError(
      `rollout.environment: the server at ${block.url} serves ${JSON.stringify(served)}, not '${block.env}' (env)`,
    );
}
