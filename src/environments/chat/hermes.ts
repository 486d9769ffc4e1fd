// The assistant's turn parsed from its text in the Hermes tool-call syntax that Qwen2.5, Qwen3 and Hermes
// models are trained on (the syntax Qwen3's chat template writes and describes in its tools prompt):
// an optional reasoning block `<think>…</think>`, then the content, then zero or more
// `<tool_call>\n{"name": …, "arguments": {…}}\n</tool_call>` blocks.
//
// The reasoning is split off exactly as Qwen3's template splits a message's content: the reasoning is
// the text before the first `</think>` after its last `<think>`, '\n' stripped at both ends, the content
// what follows the last `</think>` with leading '\n' stripped. The content ends at the first
// `<tool_call>` (its trailing '\n' dropped: the template writes it back). After vLLM's hermes tool parser
// (vllm/entrypoints/openai/tool_parsers/hermes_tool_parser.py); deviations: text between or after the
// blocks is ignored rather than kept as content, and a malformed block is an error of the whole turn
// (vLLM returns the text as content and no calls) so that the parse-error policy applies.
import type { Tool } from '../tools/define.ts';
import type { AssistantMessage, ToolCall } from './contract.ts';

/** A turn parsed from text: the message (the calls that parsed, on an error) and what was malformed. */
export interface ParsedReply {
  message: AssistantMessage;
  /** Why the turn's tool calls are malformed (one line), when they are. */
  error?: string;
}

/** Parses a turn's text into an assistant message; `idPrefix` makes the calls' ids unique. */
export type ReplyParser = (
  text: string,
  tools: readonly Pick<Tool, 'name'>[],
  idPrefix: string,
) => ParsedReply;

const open = '<tool_call>';
const close = '</tool_call>';

/** The reasoning and the rest of a turn's text, split as Qwen3's chat template splits a message. */
export function splitReasoning(text: string): { reasoning?: string; rest: string } {
  if (!text.includes('</think>')) return { rest: text };
  const parts = text.split('</think>');
  const reasoning = (parts[0].replace(/\n+$/, '').split('<think>').at(-1) ?? '').replace(/^\n+/, '');
  return { reasoning, rest: (parts.at(-1) ?? '').replace(/^\n+/, '') };
}

/** One block's JSON as a call, or why it is not one. */
function toolCall(json: string, tools: readonly Pick<Tool, 'name'>[], id: string): ToolCall | string {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch (error) {
    return `a tool call is not JSON (${error instanceof Error ? error.message : String(error)})`;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return 'a tool call is not a JSON object {"name": …, "arguments": {…}}';
  const { name, arguments: args } = value as Record<string, unknown>;
  if (typeof name !== 'string') return 'a tool call has no "name" string';
  if (!tools.some((tool) => tool.name === name))
    return `unknown tool '${name}' (known: ${tools.map((tool) => tool.name).join(', ') || 'none'})`;
  if (typeof args !== 'object' || args === null || Array.isArray(args))
    return `the call of '${name}' has no "arguments" object`;
  return { id, name, arguments: args as Record<string, unknown> };
}

/** Parses a Hermes/Qwen3 turn (see the file header); a malformed call is reported in `error`. */
export const parseHermesReply: ReplyParser = (text, tools, idPrefix) => {
  const { reasoning, rest } = splitReasoning(text);
  const first = rest.indexOf(open);
  const content = first < 0 ? rest : rest.slice(0, first).replace(/\n$/, '');
  const message: AssistantMessage = { role: 'assistant', content, toolCalls: [] };
  if (reasoning !== undefined) message.reasoning = reasoning;
  if (content.includes(close)) return { message, error: `${close} without ${open}` };
  let at = first;
  while (at >= 0) {
    const end = rest.indexOf(close, at + open.length);
    if (end < 0) return { message, error: `${open} without ${close}` };
    const inner = rest.slice(at + open.length, end);
    if (inner.includes(open)) return { message, error: `${open} inside a tool call` };
    const call = toolCall(inner.trim(), tools, `${idPrefix}_${message.toolCalls.length}`);
    if (typeof call === 'string') return { message, error: call };
    message.toolCalls.push(call);
    at = rest.indexOf(open, end + close.length);
    const between = rest.slice(end + close.length, at < 0 ? undefined : at);
    if (between.includes(close)) return { message, error: `${close} without ${open}` };
  }
  return { message };
};
