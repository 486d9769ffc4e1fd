// Options of the Tinker client backend (`policy: {backend: 'tinker', ...}` in a train config, or
// `--policy tinker://HOST:PORT` on the command line), validated by zod. Defaults follow the stock SDK 0.25
// (tinker-wire-sdk-0.25.md §1): 10 HTTP retries, backoff 0.5 s·2ⁿ ≤ 10 s, 60 s per call, 45 s per
// retrieve_future poll, a session heartbeat every 10 s, LoRA rank 32 (the SDK's default rank).
import { z } from 'zod';
import { ConfigError } from '../../../core/errors.ts';
import { linearLossMappings } from './linear-loss.ts';

export const tinkerClientOptionsSchema = z.strictObject({
  /** Server base URL, e.g. http://127.0.0.1:8000 (tinker://HOST:PORT is accepted and means http). */
  url: z.string().min(1),
  /** The base model to train (must be listed in get_server_capabilities). */
  baseModel: z.string().min(1),
  /** API key; default: env TINKER_API_KEY. Never logged. */
  apiKey: z.string().optional(),
  /** Wire codec of forward_backward: protobuf (SDK ≥ 0.25) or the legacy JSON. */
  codec: z.enum(['protobuf', 'json']).default('protobuf'),
  /** Sent as `sdk_version` in bodies and X-Stainless-Package-Version. */
  sdkVersion: z.string().default('0.25.0'),
  loraRank: z.number().int().positive().default(32),
  /** How a 'linear' forwardBackward (weights = dL/dlogp) maps onto a Tinker loss (linear-loss.ts). */
  linearLoss: z.enum(linearLossMappings.names() as [string, ...string[]]).default('cross_entropy'),
  heartbeatMs: z.number().int().positive().default(10_000),
  maxRetries: z.number().int().nonnegative().default(10),
  backoffMs: z.number().positive().default(500),
  maxBackoffMs: z.number().positive().default(10_000),
  timeoutMs: z.number().int().positive().default(60_000),
  longPollTimeoutMs: z.number().int().positive().default(45_000),
  /** Seeds the retry jitter (no Math.random). */
  seed: z.number().int().default(0),
});

export type TinkerClientOptions = z.output<typeof tinkerClientOptionsSchema>;
export type TinkerClientOptionsInput = z.input<typeof tinkerClientOptionsSchema>;

/** Parses options; a bad field is a ConfigError naming it. */
export function parseTinkerClientOptions(input: unknown): TinkerClientOptions {
  const parsed = tinkerClientOptionsSchema.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ConfigError(`policy (tinker): ${issue.path.join('.') || 'options'}: ${issue.message}`);
  }
  return parsed.data;
}

/** `tinker://host:port` → `http://host:port`; http(s) URLs unchanged; trailing slashes dropped. */
export function normaliseTinkerUrl(url: string): string {
  const converted = url.startsWith('tinker://') ? `http://${url.slice('tinker://'.length)}` : url;
  let parsed: URL;
  try {
    parsed = new URL(converted);
  } catch {
    throw new ConfigError(`policy url '${url}' is not a URL (want tinker://HOST:PORT or http://HOST:PORT)`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new ConfigError(`policy url '${url}': only tinker://, http:// and https:// are supported`);
  }
  return converted.replace(/\/+$/, '');
}
