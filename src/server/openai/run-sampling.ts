// What every sampling route shares: prompts as token ids, checked against the vocabulary and the context
// length (400 when too long, worded like vLLM's), sampled through the model's queue, then mapped to the
// OpenAI vocabulary: finish_reason 'stop' (EOS or a stop string) or 'length', vLLM's `stop_reason` (the
// stop string, or null), and the text without the stop string unless `include_stop_str_in_output`.
//
// Defaults (vLLM's, not OpenAI's): temperature 1, top_p 1, max_tokens = the context left after the
// longest prompt. Token ids keep the EOS token when one was generated (what the training loop needs);
// the text never contains it. Log-probs are the policy's at temperature 1 before top-p (vLLM's default
// `raw_logprobs` mode), so they equal `policy.forward` on the same tokens.
//
// Every request is priced before it is queued (src/server/limits.ts: prompts × n rows and their
// estimated model memory); one over the limits is a 400 that names them.

import { UserError } from '../../core/errors.ts';
import type { PolicyBackend, Tokenizer, TopLogprob } from '../../core/policy.ts';
import { bosPrompt } from '../../tasks/format.ts';
import { checkSamplingLimits, type RequestLimits } from '../limits.ts';
import type { ServedModel } from './served-models.ts';

export interface SamplingRequest {
  prompts: number[][];
  n: number;
  temperature?: number | null;
  topP?: number | null;
  maxTokens?: number | null;
  stop: string[];
  seed?: number | null;
  includeStopString: boolean;
  /** Also score each prompt (vLLM prompt_logprobs / echo with logprobs). */
  promptLogprobs: boolean;
  /** Most likely tokens to return per completion token (0: none). */
  topLogprobs?: number;
}

export interface Completion {
  tokens: number[];
  text: string;
  logprobs: number[];
  /** Per token, its most likely tokens, when topLogprobs was asked for and the policy gives them. */
  topLogprobs?: TopLogprob[][];
  finishReason: 'stop' | 'length';
  stopReason: string | null;
}

export interface SamplingResult {
  /** completions[promptIndex][sampleIndex] */
  completions: Completion[][];
  /** Per prompt: [null, log p(t1 | t0), ...] when asked for, else null. */
  promptLogprobs: (Array<number | null> | null)[];
}

/**
 * A prompt string as the embedded model saw prompts in training: BOS, then the text's tokens (a model
 * without a BOS token, such as Qwen3 behind `serve --policy`, gets the text's tokens alone).
 */
export function encodePrompt(tokenizer: Tokenizer, text: string): number[] {
  return bosPrompt(tokenizer, text, 'the prompt');
}

/** Throws a UserError (400) for prompts the model cannot take. */
export function checkPrompts(
  policy: PolicyBackend,
  prompts: number[][],
  maxTokens: number | null | undefined,
): void {
  const { vocabSize } = policy.tokenizer;
  for (const [index, prompt] of prompts.entries()) {
    for (const token of prompt) {
      if (token >= vocabSize) {
        throw new UserError(`prompt ${index}: token id ${token} is outside the vocabulary [0, ${vocabSize})`);
      }
    }
    const wanted = prompt.length + (maxTokens ?? 0);
    if (prompt.length > policy.contextLength || wanted > policy.contextLength) {
      throw new UserError(
        `This model's maximum context length is ${policy.contextLength} tokens. However, you requested ${wanted} tokens (${prompt.length} in the prompt, ${maxTokens ?? 0} in the completion). Please reduce the length of the prompt or the completion.`,
      );
    }
  }
}

export async function runSampling(
  model: ServedModel,
  request: SamplingRequest,
  limits: RequestLimits,
): Promise<SamplingResult> {
  const policy = await model.queue.policy();
  checkPrompts(policy, request.prompts, request.maxTokens);
  const longest = request.prompts.reduce((most, prompt) => Math.max(most, prompt.length), 0);
  const maxTokens = request.maxTokens ?? policy.contextLength - longest;
  const cost = checkSamplingLimits(
    policy,
    limits,
    request.prompts.map((prompt) => prompt.length),
    request.n,
    maxTokens,
  );
  const scoring = request.promptLogprobs
    ? scorePrompts(model, request.prompts)
    : Promise.resolve(request.prompts.map(() => null));
  // Both awaited together: a failed sample must not leave the scoring's rejection unhandled (Node, and
  // emscripten's handler, would end the process on it).
  const sampling = model.queue.sample(
    request.prompts,
    {
      n: request.n,
      temperature: request.temperature ?? 1,
      topP: request.topP ?? 1,
      maxTokens,
      stop: request.stop,
      ...(request.seed === undefined || request.seed === null ? {} : { seed: request.seed }),
      ...(request.topLogprobs ? { topLogprobs: request.topLogprobs } : {}),
    },
    cost.bytes,
  );
  const [sampled, promptScores] = await Promise.all([sampling, scoring]);
  const completions = sampled.map((samples) =>
    samples.map((sample): Completion => {
      const stop = sample.stopReason === 'stop' ? firstStop(sample.text, request.stop) : null;
      let text = sample.text;
      if (stop) text = text.slice(0, stop.index + (request.includeStopString ? stop.value.length : 0));
      return {
        tokens: sample.tokens,
        text,
        logprobs: sample.logprobs,
        ...(sample.topLogprobs && { topLogprobs: sample.topLogprobs }),
        finishReason: sample.stopReason === 'length' ? 'length' : 'stop',
        stopReason: stop ? stop.value : null,
      };
    }),
  );
  return { completions, promptLogprobs: promptScores };
}

/** [null, log p(t1|t0), …, log p(tL-1|…)] for each prompt (policy.forward; null for a 1-token prompt's rest). */
async function scorePrompts(model: ServedModel, prompts: number[][]): Promise<Array<number | null>[]> {
  const scorable = prompts.filter((prompt) => prompt.length >= 2);
  const scores = scorable.length > 0 ? await model.queue.forward(scorable) : [];
  let next = 0;
  return prompts.map((prompt) => (prompt.length >= 2 ? [null, ...scores[next++]] : [null]));
}

/** The earliest stop string in the text (where generation stopped) and its position. */
function firstStop(text: string, stops: readonly string[]): { value: string; index: number } | null {
  let best: { value: string; index: number } | null = null;
  for (const value of stops) {
    const index = text.indexOf(value);
    if (index !== -1 && (best === null || index < best.index)) best = { value, index };
  }
  return best;
}

/** The text of one token as a logprob entry names it (vLLM's `token_id:N` form on request). */
export function tokenLabel(tokenizer: Tokenizer, token: number, asIds: boolean): string {
  return asIds ? `token_id:${token}` : tokenizer.decode([token]);
}

/** stream: true on /inference/v1/generate is refused with a clear 400 (the OpenAI routes stream, stream.ts). */
export function refuseStreaming(stream: boolean | null | undefined): void {
  if (stream)
    throw new UserError('stream: true is not supported by /inference/v1/generate; send stream: false');
}
