// Chat messages → prompt text with the model's own Jinja chat template, rendered by `@huggingface/jinja`
// (the renderer of transformers.js), and → token ids through the model's tokenizer.
//
// The variables given to the template are those transformers' `apply_chat_template` gives: `messages`,
// `add_generation_prompt`, the special-token texts (`bos_token`, `eos_token`, `pad_token`; a token the
// model does not have is left undefined, so `{{ bos_token }}` renders '' as in Python), plus any extra
// keyword the template reads (`enable_thinking` for Qwen3, `tools`, `documents`, …).
// `chatTokenIds` encodes the rendered text without adding BOS/EOS (transformers does the same:
// add_special_tokens=False), because templates write the special tokens themselves.
//
// Sources: transformers docs, "Chat templates" (the variables above, add_generation_prompt);
// @huggingface/jinja README. Deviations: `raise_exception` and template errors surface as
// ChatTemplateError (a UserError) with the template's own message; `strftime_now` reads the clock, so a
// template that prints today's date (Llama 3.2) is not reproducible across days.
import { Template } from '@huggingface/jinja';
import { z } from 'zod';
import { UserError } from '../core/errors.ts';
import type { HfTokenizer } from './hf-tokenizer.ts';

/** A chat template that cannot be parsed or that fails (or raises) while rendering. */
export class ChatTemplateError extends UserError {
  override name = 'ChatTemplateError';
}

/** One chat message; templates may read more fields (tool_calls, reasoning_content, name, …). */
export interface ChatMessage {
  role: string;
  content?: string | null | unknown[];
  [key: string]: unknown;
}

export interface RenderChatOptions {
  /** End with the opening of an assistant turn, so that the model writes the reply (default false). */
  addGenerationPrompt?: boolean;
  bosToken?: string | null;
  eosToken?: string | null;
  padToken?: string | null;
  /** Where the template came from, for error messages. */
  source?: string;
  /** Any other variable the template reads, e.g. {enable_thinking: false} for Qwen3. */
  [variable: string]: unknown;
}

const messageSchema = z.looseObject({
  role: z.string().min(1),
  content: z.union([z.string(), z.array(z.unknown()), z.null()]).optional(),
});

/** Names the template engine defines itself (setting them again fails inside @huggingface/jinja). */
const engineNames = new Set([
  'true',
  'false',
  'none',
  'True',
  'False',
  'None',
  'raise_exception',
  'range',
  'strftime_now',
  'namespace',
]);
const optionNames = new Set(['addGenerationPrompt', 'bosToken', 'eosToken', 'padToken', 'source']);
const ownVariables = new Set(['messages', 'add_generation_prompt', 'bos_token', 'eos_token', 'pad_token']);

/** Parsed templates by text: a long run renders the same template thousands of times. */
const parsed = new Map<string, Template>();
const parsedLimit = 16;

/** Renders `messages` with `template`; throws ChatTemplateError with one line on any failure. */
export function renderChat(
  template: string,
  messages: ChatMessage[],
  options: RenderChatOptions = {},
): string {
  const source = typeof options.source === 'string' ? options.source : 'chat template';
  if (typeof template !== 'string' || template.length === 0) {
    throw new ChatTemplateError(`${source}: the chat template is empty`);
  }
  if (!Array.isArray(messages) || messages.length === 0) {
    throw new ChatTemplateError(`${source}: no messages to render (give at least one {role, content})`);
  }
  for (const [index, message] of messages.entries()) {
    const checked = messageSchema.safeParse(message);
    if (!checked.success) {
      throw new ChatTemplateError(
        `${source}: message ${index} is not {role: string, content: string | list | null}: ${z.prettifyError(checked.error).replace(/\n/g, '; ')}`,
      );
    }
  }
  const variables: Record<string, unknown> = {
    messages,
    add_generation_prompt: options.addGenerationPrompt ?? false,
  };
  const tokens = { bos_token: options.bosToken, eos_token: options.eosToken, pad_token: options.padToken };
  for (const [name, value] of Object.entries(tokens)) {
    if (value !== undefined && value !== null) variables[name] = value;
  }
  for (const [name, value] of Object.entries(options)) {
    if (optionNames.has(name) || value === undefined) continue;
    if (engineNames.has(name) || ownVariables.has(name)) {
      throw new ChatTemplateError(
        `${source}: '${name}' cannot be passed as a template variable (it is set by the renderer)`,
      );
    }
    variables[name] = value;
  }
  let compiled = parsed.get(template);
  if (!compiled) {
    try {
      compiled = new Template(template);
    } catch (error) {
      throw new ChatTemplateError(`${source}: the chat template does not parse: ${oneLine(error)}`);
    }
    if (parsed.size >= parsedLimit) parsed.delete(parsed.keys().next().value!);
    parsed.set(template, compiled);
  }
  try {
    return compiled.render(variables);
  } catch (error) {
    throw new ChatTemplateError(`${source}: the chat template failed: ${oneLine(error)}`);
  }
}

export interface ChatTokenOptions extends RenderChatOptions {
  /** Which of the model's chat templates (default 'default'). */
  templateName?: string;
}

/** The token ids of `messages` rendered with the tokenizer's own chat template and special tokens. */
export function chatTokenIds(
  tokenizer: HfTokenizer,
  messages: ChatMessage[],
  options: ChatTokenOptions = {},
): number[] {
  return tokenizer.encode(renderChatFor(tokenizer, messages, options), 'the rendered chat');
}

/** The text of `messages` rendered with the tokenizer's own chat template and special tokens. */
export function renderChatFor(
  tokenizer: HfTokenizer,
  messages: ChatMessage[],
  options: ChatTokenOptions = {},
): string {
  const { templateName, ...rest } = options;
  return renderChat(tokenizer.chatTemplate(templateName), messages, {
    bosToken: tokenizer.bosToken,
    eosToken: tokenizer.eosToken,
    padToken: tokenizer.padToken,
    source: `chat template of ${tokenizer.source}`,
    ...rest,
  });
}

function oneLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).replace(/\s*\n\s*/g, ' ');
}
