// The message-level environment contract (issue 30 item 1), after tinker-cookbook's MessageEnv
// (tinker_cookbook/rl/message_env.py: initial_observation() → messages; step(message) →
// MessageStepResult(reward, episode_done, next_messages, metrics)), which EnvFromMessageEnv turns into a
// token-level Env over a renderer. Here ChatTokenEnvironment (token-environment.ts) is that adapter, over
// the model's own chat template.
//
// Deviations: the tools an environment offers are part of the contract (Tool from tools/define.ts; their
// OpenAI entries go to the template's `tools` variable, as vLLM and transformers do), and the assistant
// message arrives parsed — reasoning, content and tool calls apart — in camelCase (`toolCalls`, not
// OpenAI's `tool_calls`); the template sees OpenAI's shape (templateMessage in messages.ts).
import type { ChatMessage } from '../../tokenizers/chat-template.ts';
import type { StepError } from '../contract.ts';
import type { Tool } from '../tools/define.ts';

/** One call the assistant made: its id (unique in the episode), the tool's name and the parsed arguments. */
export interface ToolCall {
  id: string;
  name: string;
  arguments: Record<string, unknown>;
}

/** The policy's turn as a message: what it said, its reasoning (a `<think>` block) and its tool calls. */
export interface AssistantMessage {
  role: 'assistant';
  /** The text outside the reasoning and the tool calls. */
  content: string;
  /** The reasoning block's text, when the turn had one. */
  reasoning?: string;
  toolCalls: ToolCall[];
}

/** What a chat environment's step returns: the turn's reward, whether it is over, and what follows. */
export interface ChatStepResult {
  /** Reward of this turn (the episode's return is their sum). Must be finite. */
  reward: number;
  done: boolean;
  /** Messages appended after the assistant's turn when not done (tool results, a user turn). */
  messages?: ChatMessage[];
  /** A tool that failed, a call the environment refuses: what the episode counts (contract.ts). */
  error?: StepError;
  /** Numbers logged with the episode (e.g. tool calls made). */
  metrics?: Record<string, number>;
}

/** One episode's conversation at the level of messages: single-use, made per problem. */
export interface ChatEnvironment {
  /** The conversation before the first assistant turn (system, user, …). */
  initialMessages(): Promise<ChatMessage[]>;
  /** The tools the model is offered (rendered into the prompt by the template); none when absent. */
  readonly tools?: readonly Tool[];
  /** Takes the assistant's parsed turn; says the reward, whether the episode is over, and what follows. */
  step(message: AssistantMessage): Promise<ChatStepResult>;
  /** Releases what it holds; called once, whatever happened. */
  close?(): Promise<void>;
}
