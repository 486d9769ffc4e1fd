// What an OpenAI-compatible server can give back, measured (not assumed from its name), so that a run
// whose loss needs something the server lacks fails before it starts, with one clear line:
// - `tokenIdPrompts`: /v1/completions takes `prompt: [ids]` (vLLM, SGLang; not the OpenAI cloud);
// - `tokenIds`: responses carry the exact sampled ids (vLLM `return_token_ids`, ≥ 0.10.2);
// - `logprobs`: per-token log-probs of the sampled tokens (needed by importance sampling / PPO);
// - `promptLogprobs`: vLLM's `prompt_logprobs` (needed for `forward`, i.e. teacher-forced scoring);
// - `generate`: vLLM's tokens-in/tokens-out `/inference/v1/generate`.
// The probe: GET /v1/models (the model must be listed; `max_model_len` gives the context length), one
// 1-token completion with every extension asked for, a plain retry when the server refuses extensions
// (a strict server answers 400 to unknown fields), and one 1-token generate call.
import { UserError } from '../../core/errors.ts';
import type { OpenAiHttpClient } from '../../core/http-client.ts';
import type { Tokenizer } from '../../core/policy.ts';

export interface ServerCapabilities {
  /** The probed model id (the one asked for, or the only one served). */
  model: string;
  models: string[];
  /** max_model_len of the chosen model, when the server reports it. */
  contextLength: number | null;
  tokenIdPrompts: boolean;
  tokenIds: boolean;
  logprobs: boolean;
  promptLogprobs: boolean;
  generate: boolean;
}

export type Capability = Exclude<keyof ServerCapabilities, 'model' | 'models' | 'contextLength'>;

const descriptions: Record<Capability, string> = {
  tokenIdPrompts: 'token-id prompts on /v1/completions',
  tokenIds: 'the sampled token ids (vLLM return_token_ids)',
  logprobs: 'per-token log-probs of sampled tokens',
  promptLogprobs: 'prompt log-probs (vLLM prompt_logprobs)',
  generate: 'the tokens-in/tokens-out route /inference/v1/generate',
};

interface ModelList {
  data?: Array<{ id?: unknown; max_model_len?: unknown }>;
}

interface CompletionProbe {
  choices?: Array<{
    token_ids?: unknown;
    prompt_logprobs?: unknown;
    logprobs?: { token_logprobs?: unknown } | null;
  }>;
}

/** Probes `model` (undefined: the server's only model). */
export async function probeCapabilities(
  http: OpenAiHttpClient,
  wanted: string | undefined,
  tokenizer: Tokenizer,
): Promise<ServerCapabilities> {
  const list = (await http.request('GET', '/v1/models', undefined, { maxRetries: 2 })).body as ModelList;
  const entries = Array.isArray(list?.data) ? list.data : [];
  const models = entries.map((entry) => String(entry.id));
  if (wanted === undefined && entries.length !== 1) {
    throw new UserError(
      `${http.baseUrl} serves ${models.length} models (${models.join(', ') || 'none'}); name one`,
    );
  }
  const model = wanted ?? models[0];
  const entry = entries.find((candidate) => candidate.id === model);
  if (!entry) {
    throw new UserError(
      `${http.baseUrl} does not serve model '${model}'; it serves: ${models.join(', ') || '(none)'}`,
    );
  }
  const contextLength = typeof entry.max_model_len === 'number' ? entry.max_model_len : null;
  const prompt = [tokenizer.bos, ...tokenizer.encode('Hi', 'the capability probe')];
  const full = await http.request(
    'POST',
    '/v1/completions',
    { model, prompt, max_tokens: 1, temperature: 0, logprobs: 1, return_token_ids: true, prompt_logprobs: 1 },
    { acceptClientErrors: true },
  );
  let capabilities: ServerCapabilities;
  if (full.status < 400) {
    const choice = (full.body as CompletionProbe)?.choices?.[0];
    capabilities = {
      model,
      models,
      contextLength,
      tokenIdPrompts: true,
      tokenIds: Array.isArray(choice?.token_ids),
      logprobs: Array.isArray(choice?.logprobs?.token_logprobs),
      promptLogprobs: Array.isArray(choice?.prompt_logprobs),
      generate: false,
    };
  } else {
    const plain = await http.request(
      'POST',
      '/v1/completions',
      { model, prompt: 'Hi', max_tokens: 1, logprobs: 1 },
      { acceptClientErrors: true },
    );
    const choice = plain.status < 400 ? (plain.body as CompletionProbe)?.choices?.[0] : undefined;
    capabilities = {
      model,
      models,
      contextLength,
      tokenIdPrompts: false,
      tokenIds: false,
      logprobs: Array.isArray(choice?.logprobs?.token_logprobs),
      promptLogprobs: false,
      generate: false,
    };
  }
  const generate = await http.request(
    'POST',
    '/inference/v1/generate',
    { model, token_ids: prompt, sampling_params: { max_tokens: 1, temperature: 0, logprobs: 0 } },
    { acceptClientErrors: true },
  );
  const generated = (generate.body as { choices?: Array<{ token_ids?: unknown }> })?.choices?.[0];
  capabilities.generate = generate.status < 400 && Array.isArray(generated?.token_ids);
  return capabilities;
}

/** Throws one UserError line naming the server, what is missing and who needs it. */
export function requireCapabilities(
  capabilities: ServerCapabilities,
  needed: readonly Capability[],
  baseUrl: string,
  neededBy: string,
): void {
  const missing = needed.filter((capability) => !capabilities[capability]);
  if (missing.length === 0) return;
  throw new UserError(
    `${baseUrl} cannot return ${missing.map((capability) => descriptions[capability]).join(', ')}, which ${neededBy} needs; use a server that offers it (vLLM ≥ 0.10.2 offers all of them) or a loss that does not need it`,
  );
}
