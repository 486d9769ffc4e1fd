// Pieces of OpenAI / vLLM response bodies built from token ids and log-probs:
// - completions `logprobs`: {tokens, token_logprobs, top_logprobs, text_offset} (OpenAI legacy shape);
// - chat `logprobs`: {content: [{token, logprob, bytes, top_logprobs}]} (OpenAI chat shape, also what
//   vLLM's /inference/v1/generate returns per choice);
// - vLLM `prompt_logprobs`: [null, {"<id>": {logprob, rank, decoded_token}}, …] — `rank` is null here:
//   the policy contract gives a token's log-prob, not its rank;
// - `usage`.
// The "top" lists hold only the sampled token (the contract has no full distribution; schemas.ts caps the
// requested count at 1 so this is never a silent truncation).
import type { Tokenizer } from '../../core/policy.ts';
import type { Completion } from './run-sampling.ts';
import { tokenLabel } from './run-sampling.ts';

export function completionLogprobs(
  tokenizer: Tokenizer,
  tokens: readonly number[],
  logprobs: ReadonlyArray<number | null>,
  asIds: boolean,
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
    top_logprobs: labels.map((label, index) =>
      logprobs[index] === null ? null : { [label]: logprobs[index] },
    ),
    text_offset: textOffset,
  };
}

export function chatLogprobs(
  tokenizer: Tokenizer,
  tokens: readonly number[],
  logprobs: readonly number[],
  asIds: boolean,
  topCount: number,
): object {
  return {
    content: tokens.map((token, index) => {
      const label = tokenLabel(tokenizer, token, asIds);
      const entry = { token: label, logprob: logprobs[index], bytes: [...Buffer.from(label, 'utf8')] };
      return { ...entry, top_logprobs: topCount > 0 ? [entry] : [] };
    }),
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
