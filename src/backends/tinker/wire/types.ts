// The Tinker wire messages as plain TypeScript values, shared by the protobuf codec (proto-*.ts), the
// legacy JSON codec (json-codec.ts), `curricula serve --tinker` (src/server/tinker) and, later, the Tinker
// client backend. Names follow the SDK's Python types (tinker 0.25.0) in camelCase; field numbers and
// encodings live in the codecs. Schema: ../shared/reference/tinker_public.proto.txt (package
// tinker_public), wire facts: ../shared/reference/tinker-wire-sdk-0.25.md §3.
//
// Deviations from the schema, on purpose:
// - Tensors are decoded to plain number arrays (float32 → number, int64 → number, refused beyond 2^53).
//   Sparse CSR tensors are expanded to dense on decode; the encoder writes dense only.
// - Image and dmel chunks are carried as raw bytes; the embedded model reads text chunks only.
import { UserError } from '../../../core/errors.ts';

/** Public tensor dtypes (TensorDtype in the SDK). */
export type TensorDtype = 'float32' | 'int64';

/** A dense tensor: `data` flattened in row-major order, `shape` its dimensions ([n] for a vector). */
export interface TensorData {
  data: number[];
  dtype: TensorDtype;
  shape?: number[];
}

export type ModelInputChunk =
  | { type: 'encoded_text'; tokens: number[] }
  | { type: 'image'; data: Uint8Array; format: string; expectedTokens?: number }
  | { type: 'dmel'; dmel: Uint8Array };

/** One training example: the model input (chunks) and the loss function's named input tensors. */
export interface WireDatum {
  modelInput: ModelInputChunk[];
  lossFnInputs: Record<string, TensorData>;
}

/** tinker_public.ForwardBackwardRequest (also the legacy JSON forward_backward / forward bodies). */
export interface ForwardBackwardRequest {
  modelId: string;
  /** Per-model request order; the SDK counts from 1. Absent in some legacy JSON bodies. */
  seqId?: number;
  data: WireDatum[];
  /** cross_entropy | importance_sampling | ppo | cispo | dro (or a server-specific name). */
  lossFn: string;
  lossFnConfig: Record<string, number>;
  /** true: a forward pass only (the SDK's forward()); no gradients. */
  forwardOnly: boolean;
}

/** tinker_public.ForwardBackwardOutput: per-datum output tensors and `name:reduction` metrics. */
export interface ForwardBackwardOutput {
  /** The SDK keeps the text after the last ':' (e.g. 'TorchLossReturn'). */
  lossFnOutputType: string;
  /** One record per datum: field name → tensor (e.g. logprobs, elementwise_loss). */
  lossFnOutputs: Record<string, TensorData>[];
  /** Keys must be `name:reduction` (mean|sum|min|max|…); the SDK crashes on a key without ':'. */
  metrics: Record<string, number>;
}

export type WireStopReason = 'stop' | 'length';

export interface WireSampledSequence {
  stopReason: WireStopReason;
  tokens: number[];
  /** Per-token log-probs of `tokens`; absent = not computed. */
  logprobs?: number[];
}

/** tinker_public.SampleResponse (top-k prompt log-probs are not produced or read). */
export interface SampleResponse {
  sequences: WireSampledSequence[];
  /** One per prompt token; null where not computed (always the first position). Absent = not asked. */
  promptLogprobs?: (number | null)[];
  promptCacheHitTokens?: number;
}

/** The model input's text tokens; throws for chunks that are not text (the caller says where). */
export function textTokens(chunks: readonly ModelInputChunk[]): number[] {
  const tokens: number[] = [];
  for (const chunk of chunks) {
    if (chunk.type !== 'encoded_text') {
      throw new WireFormatError(`model_input has a '${chunk.type}' chunk; only encoded_text is supported`);
    }
    for (const token of chunk.tokens) tokens.push(token);
  }
  return tokens;
}

/** A body that does not follow the wire format (bad protobuf, bad JSON shape, bad tensor bytes). */
export class WireFormatError extends UserError {
  override name = 'WireFormatError';
}
