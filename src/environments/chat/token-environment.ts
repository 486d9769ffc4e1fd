// A message-level environment (contract.ts) as a token-level one (../contract.ts), after
// tinker-cookbook's EnvFromMessageEnv (tinker_cookbook/rl/message_env.py) over the model's own chat
// template (renderer.ts) rather than a hand-written renderer per model family:
// - the first observation is the template's rendering of the initial messages and the tools, with the
//   generation prompt;
// - the policy's action tokens are kept verbatim: its turn is parsed from their text (hermes.ts for
//   Qwen3/Hermes) into an assistant message, never re-rendered;
// - each later observation is only the rendering of the newly appended messages, as a suffix of the
//   policy's closed turn (ChatRenderer.suffix), separator included (Qwen3's '\n' after <|im_end|>), all
//   masked from the loss by the runner. A turn that did not end with the template's end-of-turn token
//   (cut by the token budget, or ended by another stop id such as Qwen3's <|endoftext|>) is closed by the
//   observation: it starts with that token.
// - a malformed tool call is a 'parse' StepError: the environment's step is not called, the model is
//   told why in a user message (parseErrorMessages), and the runner's parse-error policy applies.
// The turn stops at the tokenizer's EOS (the sampler's and OpenAI servers' end-of-turn); no stop
// strings, because a Qwen3 turn may hold several tool calls before its <|im_end|>.
//
// Reasoning: since nothing is re-rendered, the trained context keeps every earlier turn's `<think>`
// block as sampled, although Qwen3's template drops earlier reasoning when it re-renders a conversation.
// At inference a client that re-renders shows the model a different context than training did;
// drift() reports, per episode, whether and where a full re-render differs from the episode's tokens.
import type { ChatMessage } from '../../tokenizers/chat-template.ts';
import type { Action, Environment, Observation, StepResult } from '../contract.ts';
import type { Episode } from '../episode-record.ts';
import type { ChatEnvironment, ChatStepResult } from './contract.ts';
import { type ChatDrift, chatDrift } from './drift.ts';
import { parseHermesReply, type ReplyParser } from './hermes.ts';
import { templateMessage } from './messages.ts';
import { ChatRenderer, type ChatRendererOptions } from './renderer.ts';

/** How a chat environment becomes a token-level one: the template, the reply syntax, the turn budget. */
export interface ChatTokenEnvironmentOptions extends Omit<ChatRendererOptions, 'tools'> {
  /** Parses a turn's text into an assistant message (default parseHermesReply: Qwen3, Hermes). */
  parse?: ReplyParser;
  /** The messages that tell the model its call was malformed (default one user message). */
  parseErrorMessages?: (error: string) => ChatMessage[];
  /** Most tokens a turn may sample (the runner's limits cap it further). */
  maxTurnTokens?: number;
}

/** The default reply to a malformed call: one user message saying what was wrong. */
export function defaultParseErrorMessages(error: string): ChatMessage[] {
  return [{ role: 'user', content: `Your tool call could not be parsed: ${error}.` }];
}

/** A ChatEnvironment seen as a token-level Environment (see the file header). */
export class ChatTokenEnvironment implements Environment {
  /** Renders this environment's prompt and suffixes (with its tools). */
  readonly renderer: ChatRenderer;
  private readonly messages: ChatMessage[] = [];
  private turn = 0;

  constructor(
    private readonly chat: ChatEnvironment,
    private readonly options: ChatTokenEnvironmentOptions,
  ) {
    this.renderer = new ChatRenderer({ ...options, tools: chat.tools });
  }

  /** The initial messages rendered with the tools and the generation prompt. */
  async initialObservation(): Promise<Observation> {
    const initial = await this.chat.initialMessages();
    this.messages.splice(0, this.messages.length, ...initial);
    const { maxTurnTokens } = this.options;
    return {
      tokens: this.renderer.initial(initial).tokens,
      stop: maxTurnTokens === undefined ? {} : { maxTokens: maxTurnTokens },
    };
  }

  /** Parses the action, steps the chat environment, and renders what it appended as a suffix. */
  async step(action: Action): Promise<StepResult> {
    const tokenizer = this.renderer.tokenizer;
    const endOfTurn = this.renderer.endOfTurn.id;
    const closed = action.tokens.at(-1) === endOfTurn;
    const stopped = closed || tokenizer.stopTokenIds.includes(action.tokens.at(-1) ?? -1);
    const body = stopped ? action.tokens.slice(0, -1) : action.tokens;
    const text = tokenizer.decode(body, { keepSpecialTokens: true });
    const tools = this.chat.tools ?? [];
    const parsed = (this.options.parse ?? parseHermesReply)(text, tools, `call_${this.turn++}`);
    this.messages.push(templateMessage(parsed.message));
    const result: ChatStepResult = parsed.error
      ? {
          reward: 0,
          done: false,
          messages: (this.options.parseErrorMessages ?? defaultParseErrorMessages)(parsed.error),
          error: { kind: 'parse', message: parsed.error },
        }
      : await this.chat.step(parsed.message);
    const { reward, done, error, metrics } = result;
    if (done) return { reward, done, error, metrics };
    const appended = result.messages ?? [];
    this.messages.push(...appended);
    const suffix = this.renderer.suffix(appended).tokens;
    return {
      reward,
      done,
      observation: { tokens: closed ? suffix : [endOfTurn, ...suffix] },
      error,
      metrics,
    };
  }

  /** The conversation so far as chat messages: the initial ones, each parsed turn, what followed it. */
  transcript(): ChatMessage[] {
    return structuredClone(this.messages);
  }

  /** Whether a full re-render of this environment's conversation differs from `episode`'s tokens. */
  drift(episode: Pick<Episode, 'tokens'>): ChatDrift {
    return chatDrift(this.renderer, this.messages, episode.tokens);
  }

  /** Closes the chat environment. */
  async close(): Promise<void> {
    await this.chat.close?.();
  }
}
