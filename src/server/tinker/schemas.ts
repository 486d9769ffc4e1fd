// zod schemas of the Tinker JSON request bodies this server reads (shapes from the SDK 0.25 types and the
// observed wire, tinker-wire-sdk-0.25.md §2). Not strict: the SDK adds fields (`type`, `sdk_version`, …)
// that we ignore, as hosted Tinker does. A bad body is a 400 naming the field.
import { z } from 'zod';
import { badRequest } from './http-errors.ts';

const seqId = z.number().int().nullish();

export const createSessionSchema = z.object({
  tags: z.array(z.string()).nullish(),
  user_metadata: z.record(z.string(), z.unknown()).nullish(),
  sdk_version: z.string().nullish(),
});

export const sessionRefSchema = z.object({ session_id: z.string() });

export const createModelSchema = z.object({
  session_id: z.string(),
  model_seq_id: z.number().int().nonnegative().nullish(),
  base_model: z.string(),
  lora_config: z.record(z.string(), z.unknown()).nullish(),
});

export const optimStepSchema = z.object({
  model_id: z.string(),
  seq_id: seqId,
  adam_params: z.object({
    learning_rate: z.number(),
    beta1: z.number().nullish(),
    beta2: z.number().nullish(),
    eps: z.number().nullish(),
    weight_decay: z.number().nullish(),
    grad_clip_norm: z.number().nullish(),
  }),
});

export const saveWeightsSchema = z.object({
  model_id: z.string(),
  seq_id: seqId,
  path: z.string().nullish(),
  overwrite: z.boolean().nullish(),
});

export const loadWeightsSchema = z.object({
  model_id: z.string(),
  seq_id: seqId,
  path: z.string(),
  optimizer: z.boolean().nullish(),
});

export const saveForSamplerSchema = z.object({
  model_id: z.string(),
  seq_id: seqId,
  path: z.string().nullish(),
  sampling_session_seq_id: z.number().int().nonnegative().nullish(),
});

export const modelRefSchema = z.object({ model_id: z.string() });

export const createSamplingSessionSchema = z.object({
  session_id: z.string(),
  sampling_session_seq_id: z.number().int().nonnegative().nullish(),
  model_path: z.string().nullish(),
  base_model: z.string().nullish(),
});

export const sampleSchema = z.object({
  sampling_session_id: z.string().nullish(),
  base_model: z.string().nullish(),
  model_path: z.string().nullish(),
  num_samples: z.number().int().positive().default(1),
  prompt: z.object({
    chunks: z.array(
      z.object({ type: z.literal('encoded_text').optional(), tokens: z.array(z.number().int()) }),
    ),
  }),
  sampling_params: z.object({
    max_tokens: z.number().int().nonnegative().nullish(),
    seed: z.number().int().nullish(),
    temperature: z.number().nonnegative().nullish(),
    top_k: z.number().int().nullish(),
    top_p: z.number().nullish(),
    stop: z.union([z.string(), z.array(z.string()), z.array(z.number().int())]).nullish(),
  }),
  prompt_logprobs: z.boolean().nullish(),
  topk_prompt_logprobs: z.number().int().nullish(),
});

export const retrieveFutureSchema = z.object({
  request_id: z.string(),
  allow_metadata_only: z.boolean().nullish(),
});

/** Parses `body` with `schema` or throws 400 naming the first bad field. */
export function parseBody<T extends z.ZodType>(schema: T, body: unknown, route: string): z.output<T> {
  const parsed = schema.safeParse(body ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw badRequest(`${route}: ${issue.path.length ? issue.path.join('.') : 'body'}: ${issue.message}`);
  }
  return parsed.data;
}
