// The legacy JSON form of the same messages, for servers and clients that predate the protobuf wire
// (SDK < 0.25 sent forward_backward as JSON; `curricula serve --tinker` accepts both by Content-Type).
// Shapes follow the SDK's pydantic types (tinker 0.25.0 src/tinker/types):
//   forward_backward body  {model_id, seq_id?, forward_backward_input: {data, loss_fn, loss_fn_config?}, type?}
//   forward body (legacy /api/v1/forward)  the same with forward_input
//   Datum                  {model_input: {chunks: [{type: "encoded_text", tokens: [int]}]}, loss_fn_inputs: {name: TensorData}}
//   TensorData             {data: [number], dtype: "float32"|"int64", shape?: [int],
//                           sparse_crow_indices?: [int], sparse_col_indices?: [int]}
//   ForwardBackwardOutput  {loss_fn_output_type, loss_fn_outputs: [{name: TensorData}], metrics}
//   SampleResponse         {type: "sample", sequences: [{tokens, logprobs?, stop_reason}], prompt_logprobs?}
// Also accepted on decode (not produced): a flat body {model_id, seq_id, data, loss_fn, loss_fn_config,
// forward_only}, i.e. the protobuf message's fields in snake_case. Validation is strict and every error
// names the path of the bad field.
import { z } from 'zod';
import type {
  ForwardBackwardOutput,
  ForwardBackwardRequest,
  SampleResponse,
  TensorData,
  WireDatum,
} from './types.ts';
import { WireFormatError } from './types.ts';

const tensorSchema = z.object({
  data: z.array(z.number()),
  dtype: z.enum(['float32', 'int64']),
  shape: z.array(z.number().int().nonnegative()).nullish(),
  sparse_crow_indices: z.array(z.number().int().nonnegative()).nullish(),
  sparse_col_indices: z.array(z.number().int().nonnegative()).nullish(),
});

const chunkSchema = z.object({
  type: z.literal('encoded_text').optional(),
  tokens: z.array(z.number().int()),
});

const datumSchema = z.object({
  model_input: z.object({ chunks: z.array(chunkSchema) }),
  loss_fn_inputs: z.record(z.string(), tensorSchema),
});

const inputSchema = z.object({
  data: z.array(datumSchema),
  loss_fn: z.string().min(1),
  loss_fn_config: z.record(z.string(), z.number()).nullish(),
});

const requestSchema = z.object({
  model_id: z.string().min(1),
  seq_id: z.number().int().nullish(),
  forward_backward_input: inputSchema.optional(),
  forward_input: inputSchema.optional(),
  data: z.array(datumSchema).optional(),
  loss_fn: z.string().min(1).optional(),
  loss_fn_config: z.record(z.string(), z.number()).nullish(),
  forward_only: z.boolean().optional(),
});

function describe(error: z.ZodError): string {
  const issue = error.issues[0];
  return `${issue.path.length > 0 ? issue.path.join('.') : 'body'}: ${issue.message}`;
}

function toTensor(raw: z.output<typeof tensorSchema>, where: string): TensorData {
  if (raw.sparse_crow_indices || raw.sparse_col_indices) {
    const shape = raw.shape ?? [];
    const crow = raw.sparse_crow_indices ?? [];
    const col = raw.sparse_col_indices ?? [];
    if (shape.length !== 2 || crow.length !== shape[0] + 1 || col.length !== raw.data.length) {
      throw new WireFormatError(`${where}: inconsistent sparse CSR tensor`);
    }
    const dense = new Array<number>(shape[0] * shape[1]).fill(0);
    for (let row = 0; row < shape[0]; row++) {
      for (let k = crow[row]; k < crow[row + 1]; k++) {
        if (col[k] >= shape[1] || k >= raw.data.length)
          throw new WireFormatError(`${where}: sparse index out of range`);
        dense[row * shape[1] + col[k]] = raw.data[k];
      }
    }
    return { data: dense, dtype: raw.dtype, shape };
  }
  if (raw.dtype === 'int64' && !raw.data.every(Number.isSafeInteger)) {
    throw new WireFormatError(`${where}: int64 tensor holds a non-integer`);
  }
  const shape = raw.shape ?? [raw.data.length];
  const size = shape.reduce((product, dimension) => product * dimension, 1);
  if (size !== raw.data.length) {
    throw new WireFormatError(
      `${where}: shape [${shape.join(', ')}] holds ${size} values, data has ${raw.data.length}`,
    );
  }
  return { data: raw.data, dtype: raw.dtype, shape };
}

function toDatum(raw: z.output<typeof datumSchema>, index: number): WireDatum {
  const lossFnInputs: Record<string, TensorData> = {};
  for (const [name, tensor] of Object.entries(raw.loss_fn_inputs)) {
    lossFnInputs[name] = toTensor(tensor, `data.${index}.loss_fn_inputs.${name}`);
  }
  return {
    modelInput: raw.model_input.chunks.map((chunk) => ({
      type: 'encoded_text' as const,
      tokens: chunk.tokens,
    })),
    lossFnInputs,
  };
}

/** Decodes a JSON forward_backward (or legacy forward) body; `forwardOnly` is the route's default. */
export function decodeJsonForwardBackwardRequest(body: unknown, forwardOnly = false): ForwardBackwardRequest {
  const parsed = requestSchema.safeParse(body);
  if (!parsed.success) throw new WireFormatError(`bad forward_backward JSON: ${describe(parsed.error)}`);
  const raw = parsed.data;
  const input =
    raw.forward_backward_input ??
    raw.forward_input ??
    (raw.data !== undefined && raw.loss_fn !== undefined
      ? { data: raw.data, loss_fn: raw.loss_fn, loss_fn_config: raw.loss_fn_config }
      : undefined);
  if (input === undefined) {
    throw new WireFormatError(
      'bad forward_backward JSON: needs forward_backward_input {data, loss_fn} (or data and loss_fn)',
    );
  }
  return {
    modelId: raw.model_id,
    seqId: raw.seq_id ?? undefined,
    data: input.data.map(toDatum),
    lossFn: input.loss_fn,
    lossFnConfig: input.loss_fn_config ?? {},
    forwardOnly: raw.forward_only ?? (raw.forward_input !== undefined || forwardOnly),
  };
}

function tensorToJson(tensor: TensorData): object {
  return { data: tensor.data, dtype: tensor.dtype, shape: tensor.shape ?? [tensor.data.length] };
}

/** The legacy JSON body of a forward_backward request (forward_only set only when true). */
export function encodeJsonForwardBackwardRequest(request: ForwardBackwardRequest): object {
  return {
    model_id: request.modelId,
    ...(request.seqId !== undefined ? { seq_id: request.seqId } : {}),
    forward_backward_input: {
      data: request.data.map((datum) => ({
        model_input: {
          chunks: datum.modelInput.map((chunk) => {
            if (chunk.type !== 'encoded_text')
              throw new WireFormatError(`JSON codec: '${chunk.type}' chunks are not supported`);
            return { type: 'encoded_text', tokens: chunk.tokens };
          }),
        },
        loss_fn_inputs: Object.fromEntries(
          Object.entries(datum.lossFnInputs).map(([name, tensor]) => [name, tensorToJson(tensor)]),
        ),
      })),
      loss_fn: request.lossFn,
      loss_fn_config: request.lossFnConfig,
    },
    ...(request.forwardOnly ? { forward_only: true } : {}),
    type: 'forward_backward',
  };
}

export function forwardBackwardOutputToJson(output: ForwardBackwardOutput): object {
  return {
    loss_fn_output_type: output.lossFnOutputType,
    loss_fn_outputs: output.lossFnOutputs.map((datum) =>
      Object.fromEntries(Object.entries(datum).map(([name, tensor]) => [name, tensorToJson(tensor)])),
    ),
    metrics: output.metrics,
  };
}

const outputSchema = z.object({
  loss_fn_output_type: z.string().default(''),
  loss_fn_outputs: z.array(z.record(z.string(), tensorSchema)),
  metrics: z.record(z.string(), z.number()).default({}),
});

export function forwardBackwardOutputFromJson(body: unknown): ForwardBackwardOutput {
  const parsed = outputSchema.safeParse(body);
  if (!parsed.success) throw new WireFormatError(`bad ForwardBackwardOutput JSON: ${describe(parsed.error)}`);
  return {
    lossFnOutputType: parsed.data.loss_fn_output_type,
    lossFnOutputs: parsed.data.loss_fn_outputs.map((datum, index) =>
      Object.fromEntries(
        Object.entries(datum).map(([name, tensor]) => [
          name,
          toTensor(tensor, `loss_fn_outputs.${index}.${name}`),
        ]),
      ),
    ),
    metrics: parsed.data.metrics,
  };
}

export function sampleResponseToJson(response: SampleResponse): object {
  return {
    type: 'sample',
    sequences: response.sequences.map((sequence) => ({
      tokens: sequence.tokens,
      ...(sequence.logprobs !== undefined ? { logprobs: sequence.logprobs } : {}),
      stop_reason: sequence.stopReason,
    })),
    ...(response.promptLogprobs !== undefined ? { prompt_logprobs: response.promptLogprobs } : {}),
  };
}

const sampleSchema = z.object({
  sequences: z.array(
    z.object({
      tokens: z.array(z.number().int()),
      logprobs: z.array(z.number()).nullish(),
      stop_reason: z.enum(['stop', 'length']),
    }),
  ),
  prompt_logprobs: z.array(z.number().nullable()).nullish(),
});

export function sampleResponseFromJson(body: unknown): SampleResponse {
  const parsed = sampleSchema.safeParse(body);
  if (!parsed.success) throw new WireFormatError(`bad SampleResponse JSON: ${describe(parsed.error)}`);
  return {
    sequences: parsed.data.sequences.map((sequence) => ({
      tokens: sequence.tokens,
      stopReason: sequence.stop_reason,
      ...(sequence.logprobs ? { logprobs: sequence.logprobs } : {}),
    })),
    ...(parsed.data.prompt_logprobs ? { promptLogprobs: parsed.data.prompt_logprobs } : {}),
  };
}
