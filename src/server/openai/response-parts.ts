// Pieces of OpenAI / vLLM response bodies built from token ids and log-probs:
// - completions `logprobs`: {tokens, token_logprobs, top_logprobs, text_offset} (OpenAI legacy shape);
// - chat `logprobs`: {content: [{token, logprob, bytes, top_logprobs}]} (OpenAI chat shape, also what
//   vLLM's /inference/v1/generate returns per choice);
// - vLLM `prompt_logprobs`: [null, {"<id>": {logprob, rank, decoded_token}}, …] — `rank` is null here:
//   the policy contract gives a token's log-prob, not its rank;
// - `usage`.
// The "top" lists come from the policy's topLogprobs (SampleOptions.topLogprobs: the most likely tokens at
// temperature 1, most likely first); a backend that gives none leaves the sampled token alone in them.
import type { Tokenizer, TopLogprob } from '../../core/policy.ts';
import type { Completion } from './run-sampling.ts';
import { tokenLabel } from './run-sampling.ts';

export function completionLogprobs(
  tokenizer: Tokenizer,
  tokens: readonly number[],
  logprobs: ReadonlyArray<number | null>,
  asIds: boolean,
  /** Per token, its most likely tokens (null: the sampled one alone). */
  tops: ReadonlyArray<readonly TopLogprob[] | null> = [],
): object {
  const labels = tokens.map((token) => tokenLabel(tokenizer, token, asIds));
  const textOffset: number[] = [];
  let offset = 0;
  for (const token of tokens) {
    textOffset.push(offset);
    offset += tokenizer.decode([token]).length;
  }
  return {
    tokens: labels,
    token_logprobs: logprobs,
    top_logprobs: labels.map((label, index) => {
      if (logprobs[index] === null) return null;
      const top = tops[index];
      if (!top) return { [label]: logprobs[index] };
      return Object.fromEntries(
        top.map((entry) => [tokenLabel(tokenizer, entry.token, asIds), entry.logprob]),
      );
    }),
    text_offset: textOffset,
  };
}

/** What a chat logprobs entry is built from: a completion's tokens, their log-probs and top tokens. */
export interface LogprobSource {
  tokens: readonly number[];
  logprobs: readonly number[];
  topLogprobs?: readonly (readonly TopLogprob[])[];
}

/** The chat `logprobs.content` entry of token `index`, with up to `topCount` top tokens. */
export function chatLogprobEntry(
  tokenizer: Tokenizer,
  source: LogprobSource,
  index: number,
  asIds: boolean,
  topCount: number,
): object {
  const entryOf = (token: number, logprob: number) => {
    const label = tokenLabel(tokenizer, token, asIds);
    return { token: label, logprob, bytes: [...Buffer.from(label, 'utf8')] };
  };
  const entry = entryOf(source.tokens[index], source.logprobs[index]);
  const top = source.topLogprobs?.[index];
  const topEntries =
    topCount === 0 ? [] : top ? top.slice(0, topCount).map((t) => entryOf(t.token, t.logprob)) : [entry];
  return { ...entry, top_logprobs: topEntries };
}

export function chatLogprobs(
  tokenizer: Tokenizer,
  source: LogprobSource,
  asIds: boolean,
  topCount: number,
): object {
  return {
    content: source.tokens.map((_, index) => chatLogprobEntry(tokenizer, source, index, asIds, topCount)),
  };
}

export function promptLogprobsVllm(
  tokenizer: Tokenizer,
  prompt: readonly number[],
  scores: ReadonlyArray<number | null> | null,
): Array<Record<string, { logprob: number; rank: null; decoded_token: string }> | null> {
  return prompt.map((token, index) => {
    const logprob = scores?.[index] ?? null;
    if (logprob === null) return null;
    return { [String(token)]: { logprob, rank: null, decoded_token: tokenizer.decode([token]) } };
  });
}

export function usage(prompts: readonly number[][], completions: readonly Completion[][]): object {
  const promptTokens = prompts.reduce((sum, prompt) => sum + prompt.length, 0);
  let completionTokens = 0;
  for (const samples of completions)
    for (const completion of samples) completionTokens += completion.tokens.length;
  return {
    prompt_tokens: promptTokens,
    completion_tokens: completionTokens,
    total_tokens: promptTokens + completionTokens,
  };
}
