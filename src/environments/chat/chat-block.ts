// The `chat` variant of the environment block (../block.ts): message-level episodes over the policy
// tokenizer's own chat template. Each episode is a ToolChatEnvironment (tool-environment.ts) seen as a
// token-level environment by ChatTokenEnvironment (token-environment.ts): the first observation is the
// template's rendering of one user message — the problem's prompt — with the tools offered in the
// template's tools prompt; the policy calls them in the Hermes syntax (`<tool_call>` blocks, hermes.ts)
// and each call's output comes back as a `tool` message rendered as a suffix of its closed turn. The first
// turn without a call ends the episode; as with tag-tools the run's reward grades the whole completion.
// The tools are tag-tools' (built by buildTools). A policy tokenizer without a chat template (the
// character model's, a raw Hugging Face tokenizer that ships none) is refused at the run's start.
import { z } from 'zod';
import { ConfigError } from '../../core/errors.ts';
import type { Tokenizer } from '../../core/policy.ts';
import type { Problem } from '../../core/problem.ts';
import { ChatPromptTokenizer } from '../../tokenizers/chat-prompt.ts';
import { HfTokenizer } from '../../tokenizers/hf-tokenizer.ts';
import { creditOptionsShape } from '../credit.ts';
import { episodeLimitsSchema } from '../limits.ts';
import type { Tool } from '../tools/define.ts';
import { localToolsShape } from '../tools/local-tools.ts';
import { ChatTokenEnvironment } from './token-environment.ts';
import { ToolChatEnvironment } from './tool-environment.ts';

/** The zod schema of `rollout.environment` with `name: chat` (defaults filled, unknown keys refused). */
export const chatBlockSchema = z
  .strictObject({
    /** 'chat': tool calls in the model's chat template (Hermes `<tool_call>` blocks; src/environments/chat). */
    name: z.literal('chat'),
    // tools (calc, search: needs `documents`, python), searchResults, toolTimeoutMs, as for tag-tools.
    ...localToolsShape,
    /** With the search tool: a JSONL file of {id, title, text} documents (src/environments/tools/search.ts). */
    documents: z.string().min(1).optional(),
    /** Longer tool outputs are cut to this many characters. */
    maxOutputChars: z.number().int().min(1).default(256),
    /** Which of the model's chat templates (absent: 'default'). */
    templateName: z.string().min(1).optional(),
    /** Qwen3's `enable_thinking` template variable (absent: the template's default). */
    enableThinking: z.boolean().optional(),
    /** Further template variables, passed as they are (the template's `tools` is the block's tools). */
    variables: z.record(z.string(), z.unknown()).default({}),
    /** Turns, tokens, timeouts and the parse-error policy of each episode (../limits.ts). */
    limits: episodeLimitsSchema.default(episodeLimitsSchema.parse({})),
    // credit ('episode' | 'turn'), callFormatReward, callFormatCap: how the sampled tokens are credited (../credit.ts).
    ...creditOptionsShape,
  })
  .refine((block) => !('tools' in block.variables) && !('enable_thinking' in block.variables), {
    message: "variables: `tools` is the block's tools and `enable_thinking` is `enableThinking`",
    path: ['variables'],
  });

/** A `chat` environment block, defaults filled. */
export type ChatBlock = z.output<typeof chatBlockSchema>;

/**
 * The Hugging Face tokenizer whose chat template renders the block's episodes: the policy's own, or the
 * one a `promptFormat: chat` tokenizer wraps; a ConfigError naming the variant and the tokenizer when it
 * has no such template.
 */
export function chatTemplateTokenizer(tokenizer: Tokenizer, templateName?: string): HfTokenizer {
  const inner = tokenizer instanceof ChatPromptTokenizer ? tokenizer.inner : tokenizer;
  const name = templateName ?? 'default';
  if (!(inner instanceof HfTokenizer))
    throw new ConfigError(
      `rollout.environment 'chat' renders episodes with the policy tokenizer's chat template, but the policy's tokenizer (${tokenizer.constructor.name}) has none: use a Hugging Face model with a chat template (policy.tokenizer) or 'tag-tools'`,
    );
  if (!inner.chatTemplates.has(name))
    throw new ConfigError(
      `rollout.environment 'chat' renders episodes with the policy tokenizer's chat template, but ${inner.source} has no chat template named '${name}' (known: ${[...inner.chatTemplates.keys()].join(', ') || 'none'}): use a model with one or 'tag-tools'`,
    );
  return inner;
}

/** The template variables of the block: its `variables` and `enable_thinking` when set. */
function templateVariables(block: ChatBlock): Record<string, unknown> {
  return block.enableThinking === undefined
    ? { ...block.variables }
    : { ...block.variables, enable_thinking: block.enableThinking };
}

/** One episode's chat environment under `block` (see the file header), over tools built by buildTools. */
export function chatEnvironmentFor(
  block: ChatBlock,
  tools: readonly Tool[],
  spec: { tokenizer: Tokenizer; prompt: number[]; problem?: Problem },
): ChatTokenEnvironment {
  const tokenizer = chatTemplateTokenizer(spec.tokenizer, block.templateName);
  // The problem's prompt as the user's message (absent: the prompt's text, as remote does).
  const content = spec.problem?.prompt ?? spec.tokenizer.decode(spec.prompt);
  const chat = new ToolChatEnvironment({
    messages: [{ role: 'user', content }],
    tools,
    // The run's reward grades the completion (episode-groups.ts), as with tag-tools.
    grade: () => 0,
    toolTimeoutMs: block.toolTimeoutMs,
    maxOutputChars: block.maxOutputChars,
  });
  return new ChatTokenEnvironment(chat, {
    tokenizer,
    templateName: block.templateName,
    variables: templateVariables(block),
    maxTurnTokens: block.limits.maxTurnTokens,
  });
}
