// The drift check (issue 30 item 1, templates that strip earlier reasoning): would a client that
// re-renders the whole conversation with the chat template — what an OpenAI-compatible server does on
// every request — show the model the tokens the episode trained on? ChatTokenEnvironment never
// re-renders, so training sees the sampled context; this says, per episode, whether inference would see
// another one. Qwen3's template drops every earlier turn's `<think>` block when it re-renders, so an
// episode with reasoning before its last user query drifts (verl#6854, prime-rl#1334); so do a tool
// call's JSON written in another layout than the template's `tojson`, a tokenization that BPE would not
// produce (TRL#5224), and an observation the runner truncated.
//
// The conversation is rendered with the generation prompt when it does not end with an assistant turn,
// encoded in one piece, and compared token by token over the episode's length; rendered tokens past the
// episode's end (the separator after its last turn) are not a difference.
import type { ChatMessage } from '../../tokenizers/chat-template.ts';
import type { ChatRenderer } from './renderer.ts';

/** Whether and where a full re-render of a conversation differs from an episode's tokens. */
export interface ChatDrift {
  /** A re-render differs from the episode somewhere in its length. */
  drifted: boolean;
  /** Index in the episode's tokens of the first difference; -1 when none. */
  firstDifference: number;
  /** Tokens of the episode and of the re-rendered conversation. */
  episodeTokens: number;
  renderedTokens: number;
  /** From the first difference on (special tokens kept, at most 80 tokens): the episode, then the re-render. */
  episodeText: string;
  renderedText: string;
}

/** Compares the re-rendered `messages` with the episode's `tokens` (see the file header). */
export function chatDrift(
  renderer: ChatRenderer,
  messages: ChatMessage[],
  tokens: readonly number[],
): ChatDrift {
  const rendered = renderer.tokenizer.encode(
    renderer.render(messages, messages.at(-1)?.role !== 'assistant'),
    renderer.source,
  );
  const firstDifference = tokens.findIndex((token, i) => i >= rendered.length || rendered[i] !== token);
  const from = Math.max(firstDifference, 0);
  const show = (ids: readonly number[]) =>
    firstDifference < 0
      ? ''
      : renderer.tokenizer.decode(ids.slice(from, from + 80), { keepSpecialTokens: true });
  return {
    drifted: firstDifference >= 0,
    firstDifference,
    episodeTokens: tokens.length,
    renderedTokens: rendered.length,
    episodeText: show(tokens),
    renderedText: show(rendered),
  };
}
