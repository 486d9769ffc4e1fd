// `curricula/environments`: multi-turn environments and tools (issue 30) — the token-level environment
// contract, the episode runner with its limits and parse-error policy, the episode record and the
// training datum it gives, episode- and turn-level credit and a format reward for tool calls, the compact tag-tool environment for the embedded model, tool definitions and
// the exact calculator. checkEnvironment (curricula/testing) runs an environment through the suite the
// built-in ones pass. Environments served over HTTP by another process (the Open Reward Standard): OrsClient
// and RemoteEnvironment. Message-level environments over a model's chat template: ChatEnvironment,
// ChatTokenEnvironment (the adapter that keeps sampled tokens verbatim and renders only appended
// messages), the Hermes/Qwen3 reply parser, ChatRenderer, the drift check and ToolChatEnvironment.
// Guide: docs/environments.md.

export type {
  AssistantMessage,
  ChatEnvironment,
  ChatStepResult,
  ToolCall,
} from '../environments/chat/contract.ts';
export { type ChatDrift, chatDrift } from '../environments/chat/drift.ts';
export {
  type ParsedReply,
  parseHermesReply,
  type ReplyParser,
  splitReasoning,
} from '../environments/chat/hermes.ts';
export { templateMessage } from '../environments/chat/messages.ts';
export {
  ChatRenderer,
  type ChatRendererOptions,
  type RenderedText,
} from '../environments/chat/renderer.ts';
export {
  ChatTokenEnvironment,
  type ChatTokenEnvironmentOptions,
  defaultParseErrorMessages,
} from '../environments/chat/token-environment.ts';
export { ToolChatEnvironment, type ToolChatOptions } from '../environments/chat/tool-environment.ts';
export type {
  Action,
  Environment,
  Observation,
  StepError,
  StepErrorKind,
  StepResult,
  StopCondition,
} from '../environments/contract.ts';
export {
  type CallFormatOptions,
  episodeTurnDatum,
  type TurnCreditOptions,
  turnAdvantages,
  wellFormedCallReward,
} from '../environments/credit.ts';
export { type RunEpisodesOptions, runEpisodes } from '../environments/episode.ts';
export { type Episode, type EpisodeEnd, episodeDatum, type Turn } from '../environments/episode-record.ts';
export {
  type EpisodeLimits,
  episodeLimitsSchema,
  type ParseErrorPolicy,
  parseEpisodeLimits,
} from '../environments/limits.ts';
export {
  blocksText,
  type OrsCallResult,
  OrsClient,
  type OrsSplit,
  type OrsToolOutput,
  type OrsToolSpec,
} from '../environments/remote/ors-client.ts';
export {
  RemoteEnvironment,
  type RemoteEnvironmentOptions,
} from '../environments/remote/remote-environment.ts';
export { RemoteEnvironmentError } from '../environments/remote/remote-error.ts';
export { type SseEvent, SseParser } from '../environments/remote/sse.ts';
export { TagToolEnvironment, type TagToolOptions, toolOutputText } from '../environments/tag-tools.ts';
export { calculator, evaluateInteger } from '../environments/tools/calculator.ts';
export {
  type CallOptions,
  defineTool,
  type Tool,
  type ToolOutcome,
  type ToolSpec,
} from '../environments/tools/define.ts';
export { type PythonToolOptions, pythonTool } from '../environments/tools/python.ts';
export {
  loadDocuments,
  matchQuery,
  type SearchDocument,
  type SearchOptions,
  searchTool,
} from '../environments/tools/search.ts';
export type { ChatMessage } from '../tokenizers/chat-template.ts';
export type { HfTokenizer } from '../tokenizers/hf-tokenizer.ts';
export { type LoadTokenizerOptions, loadTokenizer } from '../tokenizers/load-tokenizer.ts';
