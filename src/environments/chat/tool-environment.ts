// A chat environment of tool calls, graded at the end, after tinker-cookbook's build_agent_tool_env
// (tinker_cookbook/tool_use: renderer, tools, initial_messages, reward_fn, max_turns): each assistant turn
// with tool calls gets one `tool` message per call (its output, or `error: why`); the first turn without
// a call ends the episode, graded by `grade`. Turn limits are the runner's (limits.ts). Every call goes
// through Tool.call (schema check, timeout, output bound): input the schema refuses is a 'parse' error,
// a tool that throws or is late a 'tool' error, both reported to the model in the tool message.
import type { ChatMessage } from '../../tokenizers/chat-template.ts';
import type { StepError } from '../contract.ts';
import type { Tool } from '../tools/define.ts';
import type { AssistantMessage, ChatEnvironment, ChatStepResult } from './contract.ts';

/** What a tool-chat environment is made of: the conversation's start, the tools, the grader. */
export interface ToolChatOptions {
  /** The messages before the first assistant turn. */
  messages: ChatMessage[];
  tools: readonly Tool[];
  /** Grades the final answer (the first turn without a tool call): the episode's final reward. */
  grade: (message: AssistantMessage) => number;
  /** Per call (default 5000 ms). */
  toolTimeoutMs?: number;
  /** Longer outputs are cut (default 2000 characters). */
  maxOutputChars?: number;
}

/** Tool calls answered by `tool` messages until a turn without one, which is graded. */
export class ToolChatEnvironment implements ChatEnvironment {
  /** The tools offered to the model. */
  readonly tools: readonly Tool[];

  constructor(private readonly options: ToolChatOptions) {
    this.tools = options.tools;
  }

  /** A copy of the starting messages. */
  async initialMessages(): Promise<ChatMessage[]> {
    return structuredClone(this.options.messages);
  }

  /** Runs the turn's calls in order, or grades the turn when it has none. */
  async step(message: AssistantMessage): Promise<ChatStepResult> {
    if (message.toolCalls.length === 0) return { reward: this.options.grade(message), done: true };
    const messages: ChatMessage[] = [];
    const metrics: Record<string, number> = {};
    let error: StepError | undefined;
    for (const call of message.toolCalls) {
      const tool = this.tools.find((candidate) => candidate.name === call.name);
      const outcome = tool
        ? await tool.call(call.arguments, {
            timeoutMs: this.options.toolTimeoutMs ?? 5000,
            maxOutputChars: this.options.maxOutputChars ?? 2000,
          })
        : ({ ok: false, kind: 'parse', message: `unknown tool '${call.name}'` } as const);
      if (!outcome.ok) error ??= { kind: outcome.kind, message: outcome.message };
      messages.push({
        role: 'tool',
        tool_call_id: call.id,
        name: call.name,
        content: outcome.ok ? outcome.output : `error: ${outcome.message}`,
      });
      metrics.tool_calls = (metrics.tool_calls ?? 0) + 1;
      metrics[`tool_calls/${call.name}`] = (metrics[`tool_calls/${call.name}`] ?? 0) + 1;
    }
    return { reward: 0, done: false, messages, error, metrics };
  }
}
