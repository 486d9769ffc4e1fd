// Chat requests to a model whose tokenizer has its own Jinja chat template (issue 30 item 5): the
// messages and `tools` rendered by that template (tokenizers/chat-template.ts, as vLLM does with
// `apply_chat_template`), the reply parsed into `tool_calls` by the Hermes/Qwen3 parser
// (environments/chat/hermes.ts, after vLLM's hermes tool parser), and — what keeps a multi-turn episode
// trainable — the tokens of a conversation this server produced reused verbatim instead of re-rendered.
//
// Why reuse: an agent client sends the whole conversation back each turn, and re-rendering it is where
// the tokens trained stop being the tokens sampled (Qwen3's template drops earlier `<think>` blocks and
// writes arguments back with its own JSON spacing; TRL #5224, verl #6779, prime-rl #1334). So each reply
// is remembered, keyed by the conversation up to and including the assistant message exactly as this
// server returned it (content and tool_calls; `reasoning_content` is not part of the key, since clients
// often drop it): the prompt's tokens and the sampled tokens, stop token included. A later request whose
// messages start with such a conversation continues from those tokens and renders only the messages
// after it, as a suffix (ChatRenderer.suffix, the environments' rule): the prompt is then the earlier
// prompt + the sampled tokens (+ the end-of-turn token when the turn was cut) + the suffix, so a trainer
// that keeps `prompt_token_ids` and `token_ids` (return_token_ids) gets one trajectory whose sampled
// tokens are exactly what the model sampled. A conversation the server did not produce (or that the
// client changed) is rendered whole, as vLLM renders it; `prompt_reused_tokens` in the response says how
// many prompt tokens came from a remembered turn (0: rendered whole).
//
// The memory is bounded (maxConversations entries, maxRememberedTokens tokens, least recently used
// dropped first) and per model id, tools and template variables. With a template that cannot extend a
// conversation by appending (ChatRenderer's checks fail), every request is rendered whole.
import { createHash } from 'node:crypto';
import type { Tokenizer } from '../../core/policy.ts';
import { parseHermesReply, splitReasoning } from '../../environments/chat/hermes.ts';
import { ChatRenderer } from '../../environments/chat/renderer.ts';
import { ChatTemplateError, type ChatMessage as TemplateMessage } from '../../tokenizers/chat-template.ts';
import { HfTokenizer } from '../../tokenizers/hf-tokenizer.ts';
import { messageText } from './chat-template.ts';
import type { ChatMessage, ChatRequest } from './schemas.ts';

/** Most conversations remembered per server, and most tokens over all of them. */
export const maxConversations = 4096;
export const maxRememberedTokens = 1 << 22;

/** The tokenizer when it has a chat template to render with, else null (the minimal template applies). */
export function templateTokenizer(tokenizer: Tokenizer): HfTokenizer | null {
  return tokenizer instanceof HfTokenizer && tokenizer.chatTemplates.size > 0 ? tokenizer : null;
}

/** The assistant message of a reply, in the response's shape, and whether it called tools. */
export interface ReplyMessage {
  role: 'assistant';
  content: string | null;
  reasoning_content?: string;
  tool_calls?: { id: string; type: 'function'; function: { name: string; arguments: string } }[];
}

/** Remembered conversations: key → the tokens up to and including the reply. */
export class ConversationMemory {
  private readonly entries = new Map<string, Int32Array>();
  private tokens = 0;

  constructor(
    private readonly most = maxConversations,
    private readonly mostTokens = maxRememberedTokens,
  ) {}

  get(key: string): number[] | undefined {
    const found = this.entries.get(key);
    if (!found) return undefined;
    this.entries.delete(key);
    this.entries.set(key, found);
    return Array.from(found);
  }

  set(key: string, tokens: readonly number[]): void {
    if (tokens.length > this.mostTokens) return;
    this.delete(key);
    this.entries.set(key, Int32Array.from(tokens));
    this.tokens += tokens.length;
    while (this.entries.size > this.most || this.tokens > this.mostTokens) {
      const oldest = this.entries.keys().next().value as string;
      this.delete(oldest);
    }
  }

  get size(): number {
    return this.entries.size;
  }

  private delete(key: string): void {
    const found = this.entries.get(key);
    if (!found) return;
    this.tokens -= found.length;
    this.entries.delete(key);
  }
}

/** One chat request in template mode: its renderer and the key material of its conversation. */
export class TemplateChat {
  readonly renderer: ChatRenderer;
  private readonly scope: string;

  constructor(
    tokenizer: HfTokenizer,
    private readonly body: ChatRequest,
    modelId: string,
  ) {
    const tools = (body.tools ?? []).map((tool) => ({ openai: tool as never }));
    this.renderer = new ChatRenderer({
      tokenizer,
      tools,
      variables: body.chat_template_kwargs ?? undefined,
    });
    this.scope = JSON.stringify([modelId, body.tools ?? [], body.chat_template_kwargs ?? {}]);
  }

  /** The prompt's tokens, and how many of them were reused from a remembered conversation. */
  prompt(memory: ConversationMemory): { tokens: number[]; reused: number } {
    const messages = this.body.messages;
    for (let at = messages.length - 2; at >= 0; at--) {
      if (messages[at].role !== 'assistant') continue;
      const earlier = memory.get(this.key(messages.slice(0, at + 1)));
      if (!earlier) continue;
      try {
        const suffix = this.renderer.suffix(messages.slice(at + 1).map(templateMessage)).tokens;
        const endOfTurn = this.renderer.endOfTurn.id;
        const closed = earlier.at(-1) === endOfTurn;
        return { tokens: [...earlier, ...(closed ? [] : [endOfTurn]), ...suffix], reused: earlier.length };
      } catch (error) {
        if (error instanceof ChatTemplateError) break;
        throw error;
      }
    }
    return { tokens: this.renderer.initial(messages.map(templateMessage)).tokens, reused: 0 };
  }

  /**
   * The reply's message parsed from its sampled tokens (from its text when a stop string cut it): the
   * reasoning apart, tool calls unless tool_choice is 'none'. A malformed call leaves the text as content
   * and no calls, as vLLM's parser answers.
   */
  reply(
    completion: { tokens: readonly number[]; text: string; stopReason: string | null },
    index: number,
    requestId: string,
  ): ReplyMessage {
    const tokenizer = this.renderer.tokenizer;
    const { tokens } = completion;
    const stopped = tokenizer.stopTokenIds.includes(tokens.at(-1) ?? -1);
    const text =
      completion.stopReason !== null
        ? completion.text
        : tokenizer.decode(stopped ? tokens.slice(0, -1) : tokens, { keepSpecialTokens: true });
    const offered = this.body.tool_choice === 'none' ? [] : (this.body.tools ?? []);
    const tools = offered.map((tool) => ({ name: tool.function.name }));
    const parsed = parseHermesReply(text, tools, `call_${requestId}_${index}`);
    const { reasoning, rest } = splitReasoning(text);
    const calls = parsed.error || tools.length === 0 ? [] : parsed.message.toolCalls;
    const message: ReplyMessage = {
      role: 'assistant',
      content: calls.length > 0 ? parsed.message.content || null : rest,
    };
    if (reasoning !== undefined) message.reasoning_content = reasoning;
    if (calls.length > 0)
      message.tool_calls = calls.map((call) => ({
        id: call.id,
        type: 'function',
        function: { name: call.name, arguments: JSON.stringify(call.arguments) },
      }));
    return message;
  }

  /** Remembers the conversation ending in `reply`: the prompt's tokens then the sampled ones. */
  remember(memory: ConversationMemory, reply: ReplyMessage, tokens: readonly number[]): void {
    memory.set(this.key([...this.body.messages, reply as ChatMessage]), tokens);
  }

  /** The key of a conversation: its messages as a client sends them back, with the request's scope. */
  private key(messages: readonly ChatMessage[]): string {
    const normal = messages.map((message) => [
      message.role,
      messageText(message),
      message.name ?? null,
      message.tool_call_id ?? null,
      (message.tool_calls ?? []).map((call) => [
        call.id,
        call.function.name,
        canonicalJson(call.function.arguments),
      ]),
    ]);
    return createHash('sha256').update(this.scope).update(JSON.stringify(normal)).digest('hex');
  }
}

/** What the template reads for a message: arguments as objects (as vLLM hands them), text content. */
function templateMessage(message: ChatMessage): TemplateMessage {
  const rendered: TemplateMessage = { role: message.role, content: messageText(message) };
  if (message.name !== undefined) rendered.name = message.name;
  if (message.tool_call_id !== undefined) rendered.tool_call_id = message.tool_call_id;
  if (message.reasoning_content) rendered.reasoning_content = message.reasoning_content;
  if (message.tool_calls?.length)
    rendered.tool_calls = message.tool_calls.map((call) => ({
      id: call.id,
      type: 'function',
      function: { name: call.function.name, arguments: parseArguments(call.function.arguments) },
    }));
  return rendered;
}

function parseArguments(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function canonicalJson(text: string): string {
  const value = parseArguments(text);
  return typeof value === 'string' ? value : JSON.stringify(value);
}
