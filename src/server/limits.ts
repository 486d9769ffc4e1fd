// Request bounds of `curricula serve`, shared by the OpenAI and Tinker routes. One sampling call decodes
// every prompt × n row of a request together, so its memory grows with rows × tokens; the embedded model
// lives on one tfjs-wasm heap of at most 4 GiB (wasm32) that every served and trained model of the process
// shares, and a request that does not fit used to corrupt it (src/policy/runtime.ts, WasmHeapError).
// So every sampling request is priced before it runs, from the model's config, and refused with a 400
// that names the limit when it is over:
//
//   rows      = prompts × n                                   ≤ maxRows (4096)
//   KV cache  = rows × cacheColumns × 2 · layers · dModel · 4 B   (cacheColumns: the context length once
//               anything is generated — the native decoder grows the cache to it in one step — else the
//               longest prompt), × 1.5 for the copy made while the cache grows;
//   prefill   = prompts × width × layers × (28 · dModel + 3 · heads · width) · 4 B   (every layer's
//               activations, kept until the prefill's tidy ends; the attention scores are heads × width
//               per token) — measured on demo-cold with tf.profile: 256 prompts of 11 tokens peak at
//               129 MiB (≈ 24 · dModel per token and layer), estimated 177 MiB with cache and logits;
//   decode    = rows × layers × (24 · dModel + 3 · heads · cacheColumns) · 4 B   (one step's activations);
//   logits    = rows × vocab × 4 B × 3;
//   estimate  = KV cache + max(prefill, decode) + logits      ≤ samplingBytes (1 GiB)
//
// 1 GiB is a quarter of the heap: the weights of every loaded model, the Tinker models' gradients and
// Adam state, and the merge of concurrent requests (the OpenAI queue merges batches only up to the same
// budget) keep the rest. For demo-cold (4 layers, d 128, context 128: 4 KiB of KV cache per token, 512 KiB
// per row at the full context) that is about 1,300 rows per request whenever anything is generated (the
// price does not depend on max_tokens: the cache is sized to the context), and 4,096 rows for scoring only
// (max_tokens 0). An RL step's 64 prompts × n 8 = 512 rows costs about 400 MiB.
// Training requests (Tinker forward_backward / forward) run in micro-batches of bounded size, so their
// memory is bounded already; their tokens per request are capped (maxTrainTokens, 1 Mi) so that one
// request cannot hold the model for minutes. Bodies are capped by the server's body limit (413, 64 MiB by
// default, which Tinker's forward_backward needs), and the OpenAI sampling routes' bodies at 16 MiB
// (samplingBodyBytes): the most a request within the bounds needs is 4,096 prompts of a few hundred token
// ids (4,096 × 512 ids as JSON ≈ 12 MiB), and a 64 MiB JSON body costs several times that in parsed arrays.
import { UserError } from '../core/errors.ts';
import type { PolicyBackend } from '../core/policy.ts';

export interface RequestLimits {
  /** Estimated peak bytes one sampling request may need on the model's heap. */
  samplingBytes: number;
  /** Most prompt × n rows in one sampling request. */
  maxRows: number;
  /** Most tokens (summed over the data) in one Tinker forward_backward or forward request. */
  maxTrainTokens: number;
  /** Largest body of an OpenAI sampling request (bytes; the server's body limit when that is smaller). */
  samplingBodyBytes: number;
}

export const defaultRequestLimits: RequestLimits = {
  samplingBytes: 1024 ** 3,
  maxRows: 4096,
  maxTrainTokens: 1024 * 1024,
  samplingBodyBytes: 16 * 1024 * 1024,
};

/** Route options of a sampling route: its body limit (the smaller of the server's and samplingBodyBytes). */
export function samplingRouteOptions(
  serverBodyLimit: number | undefined,
  limits: RequestLimits,
): { bodyLimit: number } {
  return { bodyLimit: Math.min(serverBodyLimit ?? Number.POSITIVE_INFINITY, limits.samplingBodyBytes) };
}

/** The sizes of a model that its sampling memory depends on. */
export interface ModelShape {
  vocabSize: number;
  dModel: number;
  layers: number;
  heads: number;
  contextLength: number;
}

function isShape(value: unknown): value is ModelShape {
  const shape = value as Partial<ModelShape> | null;
  return (
    typeof shape === 'object' &&
    shape !== null &&
    [shape.vocabSize, shape.dModel, shape.layers, shape.heads, shape.contextLength].every(
      (field) => typeof field === 'number' && field > 0,
    )
  );
}

/** The config of an embedded policy (EmbeddedBackend.model.config, ParallelEmbeddedBackend.config); null for others. */
export function modelShapeOf(policy: PolicyBackend): ModelShape | null {
  const candidate = policy as { config?: unknown; model?: { config?: unknown } };
  if (isShape(candidate.model?.config)) return candidate.model.config;
  if (isShape(candidate.config)) return candidate.config;
  return null;
}

/** Bytes of KV cache per token of one row: keys and values, every layer, float32. */
export function kvBytesPerToken(shape: ModelShape): number {
  return 2 * shape.layers * shape.dModel * 4;
}

export interface SamplingCost {
  prompts: number;
  rows: number;
  /** Longest prompt, in tokens. */
  width: number;
  /** Estimated peak bytes (header formula). */
  bytes: number;
}

/** The estimate of the header for prompts of these lengths, n samples each, maxTokens new tokens. */
export function samplingCost(
  shape: ModelShape,
  promptLengths: readonly number[],
  n: number,
  maxTokens: number,
): SamplingCost {
  const prompts = promptLengths.length;
  const rows = prompts * n;
  const width = promptLengths.reduce((longest, length) => Math.max(longest, length), 0);
  const { dModel: d, layers, heads, vocabSize, contextLength } = shape;
  const columns = maxTokens > 0 ? contextLength : width;
  const cache = rows * columns * kvBytesPerToken(shape) * 1.5;
  const prefill = prompts * width * layers * (28 * d + 3 * heads * width) * 4;
  const decode = maxTokens > 0 ? rows * layers * (24 * d + 3 * heads * columns) * 4 : 0;
  const logits = rows * vocabSize * 4 * 3;
  return { prompts, rows, width, bytes: cache + Math.max(prefill, decode) + logits };
}

/** "1.5 GiB", "300 MiB". */
export function formatBytes(bytes: number): string {
  if (bytes >= 1024 ** 3) return `${(bytes / 1024 ** 3).toFixed(1)} GiB`;
  return `${Math.max(1, Math.round(bytes / 1024 ** 2))} MiB`;
}

/**
 * Throws a UserError (400) when a sampling request is over the limits; returns its cost otherwise.
 * Policies without a known config (remote or test doubles) are bounded by rows only (bytes 0).
 */
export function checkSamplingLimits(
  policy: PolicyBackend,
  limits: RequestLimits,
  promptLengths: readonly number[],
  n: number,
  maxTokens: number,
): SamplingCost {
  const rows = promptLengths.length * n;
  if (rows > limits.maxRows) {
    throw new UserError(
      `this request asks for ${rows} completions (${promptLengths.length} prompts × n ${n}); the server's limit is ${limits.maxRows} per request: send fewer prompts or a smaller n, in several requests`,
    );
  }
  const shape = modelShapeOf(policy);
  if (shape === null) return { prompts: promptLengths.length, rows, width: 0, bytes: 0 };
  const cost = samplingCost(shape, promptLengths, n, maxTokens);
  if (cost.bytes > limits.samplingBytes) {
    throw new UserError(
      `this request needs about ${formatBytes(cost.bytes)} of model memory (${cost.rows} rows = ${cost.prompts} prompts × n ${n}, prompts up to ${cost.width} tokens, max_tokens ${maxTokens}; ${kvBytesPerToken(shape)} bytes of KV cache per token and row, up to ${shape.contextLength} tokens per row); the server's limit is ${formatBytes(limits.samplingBytes)} per request: send fewer prompts, a smaller n or a smaller max_tokens, in several requests`,
    );
  }
  return cost;
}

/** Throws a UserError (400) when a training request has more tokens than the limit. */
export function checkTrainingLimits(limits: RequestLimits, tokens: number, where: string): void {
  if (tokens > limits.maxTrainTokens) {
    throw new UserError(
      `${where}: this request has ${tokens} tokens; the server's limit is ${limits.maxTrainTokens} tokens per request: split the data over several requests`,
    );
  }
}
