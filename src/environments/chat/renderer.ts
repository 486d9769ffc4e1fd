// Chat messages → the tokens a message-level environment appends (issue 30 item 1): the first
// observation is the template's rendering of the initial messages with the generation prompt; every
// later observation is only the rendering of the newly appended messages, as a suffix of the policy's
// closed turn, so the tokens the policy sampled are never re-rendered.
//
// The suffix rule is the fixed-base trick of SkyRL's generator (skyrl_gym_generator: render
// [base, *new], slice off the base, keep the '\n' after EOS) and TRL's dummy-conversation diff
// (trl/trainer/grpo_trainer.py, _tool_call_loop): render a fixed placeholder conversation [user,
// assistant] alone (B) and followed by the new messages with the generation prompt (F); the suffix is
// F after the placeholder assistant's end-of-turn token. Asserted, with a ChatTemplateError naming the
// template when it fails:
//   1. F and B start with the rendering of the placeholder user turn alone (earlier turns are not
//      re-rendered);
//   2. in both, the placeholder assistant's content is followed directly by an end-of-turn token of the
//      tokenizer (the token the policy samples to end its turn is where the template closes the turn);
//   3. in F that end-of-turn token is followed by what follows it in B (the separator, Qwen3's '\n').
// Deviation from a plain "B is a prefix of F" assertion: the placeholder assistant turn's OWN rendering
// may differ between B and F. Qwen3's template writes an empty `<think>\n\n</think>\n\n` into the last
// assistant turn and drops it once a turn follows, so with Qwen3 B is never a prefix of F (the failure
// prime-rl#1334 reports); the policy's own turn is kept as sampled whatever the template would write
// there, so only what comes after it matters. The suffix may still depend on the placeholder (a template
// that numbers turns, or checks that tool results answer a call, renders differently after the real
// conversation): such templates are not supported; chatDrift (drift.ts) shows it.
import { type ChatMessage, ChatTemplateError, renderChatFor } from '../../tokenizers/chat-template.ts';
import type { HfTokenizer } from '../../tokenizers/hf-tokenizer.ts';
import type { Tool } from '../tools/define.ts';

/** Which template renders and with what: the model's tokenizer, the tools offered, extra variables. */
export interface ChatRendererOptions {
  tokenizer: HfTokenizer;
  /** Tools offered to the model: their OpenAI entries become the template's `tools` variable. */
  tools?: readonly Pick<Tool, 'openai'>[];
  /** Which of the model's chat templates (default 'default'). */
  templateName?: string;
  /** Extra template variables, e.g. {enable_thinking: false} for Qwen3. */
  variables?: Record<string, unknown>;
}

/** Rendered text and its token ids. */
export interface RenderedText {
  text: string;
  tokens: number[];
}

/** What the placeholder conversation shows about the template (see the file header). */
interface Boundary {
  /** The placeholder user turn rendered alone: the head both renderings must start with. */
  head: string;
  /** The end-of-turn token that closes an assistant turn: its id and text. */
  endOfTurn: { id: number; text: string };
  /** What the template writes after an assistant turn's end-of-turn token (Qwen3: '\n'). */
  separator: string;
}

const placeholderUser = 'PLACEHOLDER_USER_TURN';
const placeholderAssistant = 'PLACEHOLDER_ASSISTANT_TURN';
const placeholder: ChatMessage[] = [
  { role: 'user', content: placeholderUser },
  { role: 'assistant', content: placeholderAssistant },
];

/** Renders first observations and appended-message suffixes with a model's chat template. */
export class ChatRenderer {
  /** The template's name in messages (the tokenizer's source and the template's name). */
  readonly source: string;
  private readonly variables: Record<string, unknown>;
  private cachedBoundary?: Boundary;

  constructor(private readonly options: ChatRendererOptions) {
    const tools = options.tools ?? [];
    this.variables = { ...options.variables };
    if (tools.length > 0) this.variables.tools = tools.map((tool) => tool.openai);
    this.source = `chat template '${options.templateName ?? 'default'}' of ${options.tokenizer.source}`;
  }

  /** The tokenizer the renderer encodes with. */
  get tokenizer(): HfTokenizer {
    return this.options.tokenizer;
  }

  /** The whole conversation rendered (with the tools), ending with the generation prompt when asked. */
  render(messages: ChatMessage[], addGenerationPrompt: boolean): string {
    return renderChatFor(this.options.tokenizer, messages, {
      ...this.variables,
      templateName: this.options.templateName,
      addGenerationPrompt,
    });
  }

  /** The first observation: the initial messages with the generation prompt. */
  initial(messages: ChatMessage[]): RenderedText {
    const text = this.render(messages, true);
    return { text, tokens: this.encode(text) };
  }

  /** The end-of-turn token that closes an assistant turn in this template. */
  get endOfTurn(): { id: number; text: string } {
    return this.boundary().endOfTurn;
  }

  /**
   * What follows a closed assistant turn when `messages` are appended: the separator after its
   * end-of-turn token, the messages, and the generation prompt (see the file header).
   */
  suffix(messages: ChatMessage[]): RenderedText {
    const { head, endOfTurn, separator } = this.boundary();
    const full = this.render([...placeholder, ...messages], true);
    const end = this.closeOf(full, head, 'followed by new messages');
    if (full.slice(end, end + endOfTurn.text.length) !== endOfTurn.text)
      this.fail(`closes an assistant turn with different tokens once messages follow it`);
    const text = full.slice(end + endOfTurn.text.length);
    if (!text.startsWith(separator))
      this.fail(`does not keep ${JSON.stringify(separator)} after an assistant turn once messages follow it`);
    return { text, tokens: this.encode(text) };
  }

  private boundary(): Boundary {
    if (this.cachedBoundary) return this.cachedBoundary;
    const head = this.render(placeholder.slice(0, 1), false);
    const alone = this.render(placeholder, false);
    const at = this.closeOf(alone, head, 'alone');
    const tokenizer = this.options.tokenizer;
    const endOfTurn = tokenizer.stopTokenIds
      .map((id) => ({ id, text: tokenizer.tokenText(id) ?? '' }))
      .find((token) => token.text.length > 0 && alone.startsWith(token.text, at));
    if (!endOfTurn)
      this.fail(
        `does not end an assistant turn with one of the tokenizer's stop tokens right after its content (stop ids ${tokenizer.stopTokenIds.join(', ')})`,
      );
    const separator = alone.slice(at + endOfTurn.text.length);
    this.cachedBoundary = { head, endOfTurn, separator };
    return this.cachedBoundary;
  }

  /** Where the placeholder assistant's content ends in `rendered`, after checking the head. */
  private closeOf(rendered: string, head: string, how: string): number {
    if (!rendered.startsWith(head))
      this.fail(`re-renders the turns before an assistant turn differently when it is ${how}`);
    const at = rendered.indexOf(placeholderAssistant, head.length);
    if (at < 0) this.fail(`does not write an assistant turn's content verbatim when it is ${how}`);
    return at + placeholderAssistant.length;
  }

  private encode(text: string): number[] {
    return this.options.tokenizer.encode(text, this.source);
  }

  private fail(what: string): never {
    throw new ChatTemplateError(
      `${this.source} ${what}, so an observation cannot be rendered as a suffix of the sampled tokens; use a template that extends a conversation by appending (or a training template), or a token-level environment`,
    );
  }
}
