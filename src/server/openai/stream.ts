// `stream: true` on /v1/chat/completions and /v1/completions: the response as server-sent events, in
// OpenAI's chunk shapes (chat.completion.chunk with `delta`s, text_completion chunks with `text`), one
// chunk per sampled token, a last chunk per choice with its finish_reason, then, with
// `stream_options.include_usage`, a chunk with no choices and the usage (every earlier chunk carrying
// `usage: null`, as OpenAI sends it), then `data: [DONE]`.
//
// Deviation: the chunks are written once the request's completions are sampled — the embedded sampler
// decodes a whole batch together, and requests are batched across clients (sample-queue.ts) — so a
// client receives a valid stream, token by token, but not while the model is still writing. A request
// that fails (a bad body, a prompt too long) fails before the stream starts, with the usual JSON error.
import type { FastifyReply } from 'fastify';
import type { Tokenizer } from '../../core/policy.ts';

/** One choice to stream: its index, its pieces of text (with the token each came from), how it ended. */
export interface StreamChoice {
  index: number;
  pieces: { text: string; token: number }[];
  /**
   * Instead of pieces: the whole parsed reply as one delta (a model with a chat template: content,
   * reasoning_content and tool_calls, each call with its index as OpenAI streams them).
   */
  whole?: { content: string | null; reasoning_content?: string; tool_calls?: object[] };
  /** The sampled token ids (with `whole` and logprobs: the one delta's logprobs cover them all). */
  tokens?: readonly number[];
  finishReason: 'stop' | 'length' | 'tool_calls';
  stopReason: string | null;
  /** The chat `logprobs.content` entry of each piece, when logprobs were asked for. */
  logprobs?: (token: number) => object;
}

/**
 * The text of each sampled token, in order, cut where the completion's text ends (a stop string not
 * included in the output); tokens without text (EOS) give no piece.
 */
export function tokenPieces(
  tokenizer: Tokenizer,
  tokens: readonly number[],
  text: string,
): { text: string; token: number }[] {
  const pieces: { text: string; token: number }[] = [];
  let used = 0;
  tokens.forEach((token, index) => {
    if (used >= text.length) return;
    const piece = tokenizer.decode([token]).slice(0, text.length - used);
    if (piece.length === 0) return;
    pieces.push({ text: piece, token: index });
    used += piece.length;
  });
  if (used < text.length) pieces.push({ text: text.slice(used), token: -1 });
  return pieces;
}

interface StreamHead {
  id: string;
  created: number;
  model: string;
}

/** The SSE events of a chat completion. */
export function chatEvents(head: StreamHead, choices: StreamChoice[], usage: object | null): string[] {
  const base = { ...head, object: 'chat.completion.chunk' };
  const extra = usage ? { usage: null } : {};
  const chunk = (choice: object) => ({ ...base, choices: [choice], ...extra });
  const events: object[] = [];
  for (const choice of choices) {
    events.push(
      chunk({
        index: choice.index,
        delta: { role: 'assistant', content: '' },
        logprobs: null,
        finish_reason: null,
      }),
    );
    if (choice.whole) events.push(chunk(wholeDelta(choice, choice.whole)));
    for (const piece of choice.pieces)
      events.push(
        chunk({
          index: choice.index,
          delta: { content: piece.text },
          logprobs: choice.logprobs && piece.token >= 0 ? { content: [choice.logprobs(piece.token)] } : null,
          finish_reason: null,
        }),
      );
    events.push(
      chunk({
        index: choice.index,
        delta: {},
        logprobs: null,
        finish_reason: choice.finishReason,
        stop_reason: choice.stopReason,
      }),
    );
  }
  return sseEvents(events, base, usage);
}

/** The one delta of a parsed reply: its fields, the calls numbered, and every token's logprob. */
function wholeDelta(choice: StreamChoice, whole: NonNullable<StreamChoice['whole']>): object {
  const delta: Record<string, unknown> = { content: whole.content };
  if (whole.reasoning_content !== undefined) delta.reasoning_content = whole.reasoning_content;
  if (whole.tool_calls) delta.tool_calls = whole.tool_calls.map((call, index) => ({ index, ...call }));
  const { logprobs, tokens } = choice;
  const content = logprobs && tokens ? tokens.map((_, token) => logprobs(token)) : null;
  return { index: choice.index, delta, logprobs: content && { content }, finish_reason: null };
}

/** The SSE events of a legacy completion (text chunks; no per-chunk logprobs). */
export function completionEvents(head: StreamHead, choices: StreamChoice[], usage: object | null): string[] {
  const base = { ...head, object: 'text_completion' };
  const extra = usage ? { usage: null } : {};
  const events: object[] = [];
  for (const choice of choices) {
    for (const piece of choice.pieces)
      events.push({
        ...base,
        choices: [{ index: choice.index, text: piece.text, logprobs: null, finish_reason: null }],
        ...extra,
      });
    events.push({
      ...base,
      choices: [
        {
          index: choice.index,
          text: '',
          logprobs: null,
          finish_reason: choice.finishReason,
          stop_reason: choice.stopReason,
        },
      ],
      ...extra,
    });
  }
  return sseEvents(events, base, usage);
}

/** The chunks as SSE events: the usage chunk (no choices) last when there is one, then [DONE]. */
function sseEvents(chunks: readonly object[], base: object, usage: object | null): string[] {
  const all = usage ? [...chunks, { ...base, choices: [], usage }] : chunks;
  return [...all.map((chunk) => `data: ${JSON.stringify(chunk)}\n\n`), 'data: [DONE]\n\n'];
}

/** Writes the events as a text/event-stream response (the reply is hijacked from fastify). */
export function sendEvents(reply: FastifyReply, events: readonly string[]): FastifyReply {
  reply.hijack();
  reply.raw.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
  });
  for (const event of events) reply.raw.write(event);
  reply.raw.end();
  return reply;
}
