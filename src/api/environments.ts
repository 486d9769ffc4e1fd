// `curricula/environments`: multi-turn environments and tools (issue 30) — the token-level environment
// contract, the episode runner with its limits and parse-error policy, the episode record and the
// training datum it gives, episode- and turn-level credit and a format reward for tool calls, the compact tag-tool environment for the embedded model, tool definitions and
// the exact calculator. checkEnvironment (curricula/testing) runs an environment through the suite the
// built-in ones pass. Environments served over HTTP by another process (the Open Reward Standard): OrsClient
// and RemoteEnvironment. Guide: docs/environments.md.
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
