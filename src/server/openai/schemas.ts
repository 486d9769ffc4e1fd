// Request bodies of the OpenAI-compatible routes, validated with zod. Field names and ranges follow the
// OpenAI API reference (platform.openai.com/docs/api-reference/completions, .../chat) and vLLM's
// extensions (vllm/entrypoints/openai/protocol.py: return_token_ids, return_tokens_as_token_ids,
// prompt_logprobs, include_stop_str_in_output; serve/disagg/protocol.py: GenerateRequest).
//
// Deviations, all answered with a clear 400 rather than silently ignored:
// - `logprobs` (completions) accepts up to 5 and `top_logprobs` (chat) up to 20, OpenAI's limits; the
//   top tokens are the policy's most likely at temperature 1 (SampleOptions.topLogprobs).
// - `stream: true` is answered with server-sent events written once the completion is sampled (stream.ts);
//   /inference/v1/generate refuses it. `prompt_logprobs` accepts 0 or 1 for the same reason as logprobs.
// - penalties must be 0 and `logit_bias` empty; `best_of` must equal n.
// - `tool_choice` accepts 'auto' and 'none' only (a forced call needs guided decoding); `tools`, tool
//   messages and assistant `tool_calls` need a model whose tokenizer has a chat template (chat-tools.ts).
// Other unknown fields are dropped, as vLLM does (stock clients send `user`, ...).
import { z } from 'zod';
import { UserError } from '../../core/errors.ts';

const stopSchema = z.union([z.string(), z.array(z.string()).max(16)]).nullish();
const tokenIds = z.array(z.number().int().nonnegative());

/** Sampling fields shared by completions and chat (OpenAI names). */
const samplingFields = {
  model: z.string().min(1).optional(),
  n: z.number().int().min(1).max(64).default(1),
  temperature: z.number().min(0).max(2).nullish(),
  top_p: z.number().gt(0).max(1).nullish(),
  max_tokens: z.number().int().min(0).nullish(),
  stop: stopSchema,
  seed: z.number().int().nullish(),
  stream: z.boolean().nullish(),
  /** With stream: include_usage adds a last chunk with the usage (stream.ts). */
  stream_options: z.object({ include_usage: z.boolean().nullish() }).nullish(),
  frequency_penalty: z.literal(0).nullish(),
  presence_penalty: z.literal(0).nullish(),
  logit_bias: z
    .record(z.string(), z.number())
    .refine((bias) => Object.keys(bias).length === 0, {
      message: 'logit_bias is not supported (send {} or omit it)',
    })
    .nullish(),
  // vLLM extensions
  return_token_ids: z.boolean().nullish(),
  return_tokens_as_token_ids: z.boolean().nullish(),
  prompt_logprobs: z.number().int().min(0).max(1).nullish(),
  include_stop_str_in_output: z.boolean().nullish(),
};

export const completionRequestSchema = z.object({
  ...samplingFields,
  prompt: z.union([z.string(), z.array(z.string()).min(1), tokenIds.min(1), z.array(tokenIds.min(1)).min(1)]),
  logprobs: z.number().int().min(0).max(5).nullish(),
  echo: z.boolean().nullish(),
  best_of: z.number().int().min(1).nullish(),
  suffix: z.null().optional(),
});
export type CompletionRequest = z.infer<typeof completionRequestSchema>;

const contentPart = z.object({ type: z.literal('text'), text: z.string() });

/** A call in an assistant message (OpenAI's shape; `arguments` is a JSON string). */
const toolCallSchema = z.object({
  id: z.string().min(1).max(256),
  type: z.literal('function').default('function'),
  function: z.object({ name: z.string().min(1).max(256), arguments: z.string().max(1 << 20) }),
});

export const chatMessageSchema = z
  .object({
    role: z.enum(['system', 'developer', 'user', 'assistant', 'tool']),
    content: z.union([z.string(), z.array(contentPart), z.null()]).optional(),
    name: z.string().optional(),
    /** Assistant messages: the calls the model made (as this server returned them). */
    tool_calls: z.array(toolCallSchema).max(128).optional(),
    /** Tool messages: the call they answer. */
    tool_call_id: z.string().min(1).max(256).optional(),
    /** Assistant messages: the turn's reasoning (vLLM's field; Qwen3's template reads it). */
    reasoning_content: z.string().nullish(),
  })
  .superRefine((message, context) => {
    const fail = (text: string) => context.addIssue({ code: 'custom', message: text });
    if (message.role === 'tool' && message.tool_call_id === undefined)
      fail('a tool message needs tool_call_id (the id of the call it answers)');
    if (message.tool_calls !== undefined && message.role !== 'assistant')
      fail('only assistant messages carry tool_calls');
    const hasContent = message.content !== undefined && message.content !== null;
    if (!hasContent && !(message.role === 'assistant' && (message.tool_calls?.length ?? 0) > 0))
      fail('content is required (null only for an assistant message with tool_calls)');
  });
export type ChatMessage = z.infer<typeof chatMessageSchema>;

/** A tool the model may call (OpenAI's function tool). */
export const chatToolSchema = z.object({
  type: z.literal('function'),
  function: z.object({
    name: z.string().min(1).max(256),
    description: z.string().optional(),
    parameters: z.record(z.string(), z.unknown()).optional(),
    strict: z.boolean().nullish(),
  }),
});
export type ChatTool = z.infer<typeof chatToolSchema>;

export const chatRequestSchema = z.object({
  ...samplingFields,
  messages: z.array(chatMessageSchema).min(1),
  logprobs: z.boolean().nullish(),
  top_logprobs: z.number().int().min(0).max(20).nullish(),
  max_completion_tokens: z.number().int().min(0).nullish(),
  /** Tools rendered by the model's chat template; calls come back as tool_calls (chat-tools.ts). */
  tools: z.array(chatToolSchema).max(128).nullish(),
  /** 'auto' (parse calls) or 'none' (answer in text); forcing a call needs guided decoding: refused. */
  tool_choice: z
    .union([z.enum(['auto', 'none']), z.unknown()])
    .nullish()
    .refine((choice) => choice === undefined || choice === null || choice === 'auto' || choice === 'none', {
      message: "only 'auto' and 'none' are supported (forcing a call needs guided decoding)",
    }),
  parallel_tool_calls: z.boolean().nullish(),
  /** vLLM's extension: extra variables for the chat template, e.g. {enable_thinking: false} (Qwen3). */
  chat_template_kwargs: z.record(z.string(), z.unknown()).nullish(),
});
export type ChatRequest = z.infer<typeof chatRequestSchema>;

/** vLLM SamplingParams as they appear in a GenerateRequest (the subset the embedded model honours). */
export const samplingParamsSchema = z.object({
  n: z.number().int().min(1).max(64).default(1),
  temperature: z.number().min(0).max(2).nullish(),
  top_p: z.number().gt(0).max(1).nullish(),
  max_tokens: z.number().int().min(0).nullish(),
  stop: stopSchema,
  seed: z.number().int().nullish(),
  logprobs: z.number().int().min(0).max(20).nullish(),
  prompt_logprobs: z.number().int().min(0).max(1).nullish(),
  include_stop_str_in_output: z.boolean().nullish(),
});
export type SamplingParams = z.infer<typeof samplingParamsSchema>;

export const generateRequestSchema = z.object({
  token_ids: tokenIds.min(1),
  sampling_params: samplingParamsSchema.default({ n: 1 }),
  model: z.string().min(1).optional(),
  stream: z.boolean().nullish(),
});
export type GenerateRequest = z.infer<typeof generateRequestSchema>;

export const loadAdapterSchema = z.object({
  lora_name: z.string().min(1).max(200),
  lora_path: z.string().min(1),
  load_inplace: z.boolean().nullish(),
});

export const unloadAdapterSchema = z.object({ lora_name: z.string().min(1) });

/** SGLang's disk reload: replaces the served (base) model's weights. */
export const updateFromDiskSchema = z.object({
  model_path: z.string().min(1),
  load_format: z.string().nullish(),
  flush_cache: z.boolean().nullish(),
  abort_all_requests: z.boolean().nullish(),
  weight_version: z.string().nullish(),
});

/** Parses a body or throws a UserError (→ 400) listing each bad field as `path: message`. */
export function parseBody<T>(schema: z.ZodType<T>, body: unknown, route: string): T {
  if (body === undefined || body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new UserError(`${route}: the request body must be a JSON object`);
  }
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  const problems = result.error.issues.map(
    (issue) => `${issue.path.join('.') || '(body)'}: ${issue.message}`,
  );
  throw new UserError(`${route}: ${problems.join('; ')}`);
}

/** A stop field as a list (OpenAI allows a string, a list or null). */
export function stopList(stop: string | string[] | null | undefined): string[] {
  if (stop === undefined || stop === null) return [];
  return (typeof stop === 'string' ? [stop] : stop).filter((entry) => entry.length > 0);
}

/** vLLM's disk weight-transfer backend: `update_info.path` is a checkpoint directory. */
export const vllmUpdateWeightsSchema = z.object({
  update_info: z.object({ path: z.string().min(1) }),
});
