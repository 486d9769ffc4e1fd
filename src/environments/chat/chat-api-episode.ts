// A message-level environment (contract.ts) run against a chat model's API rather than its tokens
// (issue 30 item 5): each assistant turn is one request of the whole conversation and the environment's
// tools to an OpenAI-compatible /v1/chat/completions (backends/openai/chat-completions.ts); the server
// renders with the model's chat template and parses the calls, and its `tool_calls` come back here as the
// assistant message the environment steps. For evaluating a chat model on our environments wherever it is
// served (hosted APIs included); training needs the token-level path (token-environment.ts), where the
// tokens trained are the tokens sampled by construction.
//
// Limits are the episode limits' (limits.ts): maxTurns, maxTurnTokens (the request's max_tokens),
// stepTimeoutMs (per environment step), and the parse-error policy for a call whose arguments are not a
// JSON object or name an unknown tool ('respond': the environment's error reply is appended and the
// episode goes on; 'end': it ends, rewards kept; 'zero': it ends with return 0). A request that fails
// after the client's retries ends the episode as 'environment_error', with the server's message.
// Token continuity: when the server returns token ids (vLLM's return_token_ids; `curricula serve
// --openai` keeps them by construction), each turn's prompt is checked to start with the previous
// turn's prompt and sampled tokens; `tokens.drifted` counts the turns where a re-render changed them.
import type { ChatApi, ChatApiReply } from '../../backends/openai/chat-completions.ts';
import { withDeadline } from '../../core/deadline.ts';
import type { ChatMessage } from '../../tokenizers/chat-template.ts';
import type { StepError, StepErrorKind } from '../contract.ts';
import type { EpisodeEnd } from '../episode-record.ts';
import type { EpisodeLimits } from '../limits.ts';
import type { AssistantMessage, ChatEnvironment, ChatStepResult } from './contract.ts';
import { defaultParseErrorMessages } from './token-environment.ts';

/** One episode over a chat API. */
export interface ChatApiEpisode {
  /** The conversation as sent: initial messages, each assistant turn as returned, what followed it. */
  messages: ChatMessage[];
  turns: { reward: number; toolCalls: number; finishReason: string; error?: StepError }[];
  /** The sum of the turns' rewards (0 under parse policy 'zero' after a malformed call). */
  reward: number;
  /** The last assistant turn's content: what a verifier grades. */
  final: string;
  errors: Record<StepErrorKind, number>;
  end: EpisodeEnd;
  /** Whether each turn's prompt extended the last (null: the server returned no token ids). */
  tokens: { checked: number; drifted: number } | null;
  /** Why the episode ended early, when it did. */
  reason?: string;
}

/** How a chat-API episode is sampled and bounded. */
export interface ChatApiEpisodeOptions {
  limits: EpisodeLimits;
  temperature: number;
  topP: number;
  /** Seed of the first request (turn k sends seed + k); absent: the server's. */
  seed?: number;
}

/** The assistant message the environment steps: arguments parsed, or why they cannot be. */
function assistantMessage(
  reply: ChatApiReply,
  chat: ChatEnvironment,
): { message: AssistantMessage; error?: string } {
  const message: AssistantMessage = { role: 'assistant', content: reply.content ?? '', toolCalls: [] };
  if (reply.reasoning !== undefined) message.reasoning = reply.reasoning;
  const known = new Set((chat.tools ?? []).map((tool) => tool.name));
  for (const call of reply.toolCalls) {
    if (!known.has(call.name))
      return { message, error: `unknown tool '${call.name}' (known: ${[...known].join(', ') || 'none'})` };
    let args: unknown;
    try {
      args = JSON.parse(call.arguments);
    } catch {
      return { message, error: `the arguments of '${call.name}' are not JSON` };
    }
    if (typeof args !== 'object' || args === null || Array.isArray(args))
      return { message, error: `the arguments of '${call.name}' are not a JSON object` };
    message.toolCalls.push({ id: call.id, name: call.name, arguments: args as Record<string, unknown> });
  }
  return { message };
}

/** The assistant turn as it is sent back (OpenAI's shape, the calls as the server returned them). */
function sentBack(reply: ChatApiReply): ChatMessage {
  const message: ChatMessage = { role: 'assistant', content: reply.content };
  if (reply.toolCalls.length > 0)
    message.tool_calls = reply.toolCalls.map((call) => ({
      id: call.id,
      type: 'function',
      function: { name: call.name, arguments: call.arguments },
    }));
  return message;
}

/**
 * The environment's answer to a parsed turn, or the parse-error reply to a malformed one (counted); null
 * when the step threw or did not answer within stepTimeoutMs (counted; the episode ends there).
 */
async function stepTurn(
  chat: ChatEnvironment,
  parsed: { message: AssistantMessage; error?: string },
  limits: EpisodeLimits,
  episode: ChatApiEpisode,
): Promise<ChatStepResult | null> {
  if (parsed.error) {
    episode.errors.parse++;
    return {
      reward: 0,
      done: limits.parseErrors !== 'respond',
      messages: defaultParseErrorMessages(parsed.error),
      error: { kind: 'parse', message: parsed.error },
    };
  }
  try {
    const step = Promise.resolve().then(() => chat.step(parsed.message));
    const late = `the environment step did not answer within ${limits.stepTimeoutMs} ms`;
    const result = await withDeadline(step, limits.stepTimeoutMs, late);
    if (result.error) episode.errors[result.error.kind]++;
    return result;
  } catch (error) {
    episode.errors.environment++;
    episode.end = 'environment_error';
    episode.reason = error instanceof Error ? error.message : String(error);
    return null;
  }
}

/** Runs one episode of `chat` against `api` (see the file header); closes the environment. */
export async function runChatApiEpisode(
  chat: ChatEnvironment,
  api: ChatApi,
  options: ChatApiEpisodeOptions,
): Promise<ChatApiEpisode> {
  const { limits } = options;
  const tools = (chat.tools ?? []).map((tool) => tool.openai);
  const episode: ChatApiEpisode = {
    messages: [],
    turns: [],
    reward: 0,
    final: '',
    errors: { parse: 0, tool: 0, environment: 0 },
    end: 'max_turns',
    tokens: null,
  };
  let previous: number[] | null = null;
  const stop = (end: EpisodeEnd, reason?: string) => {
    episode.end = end;
    if (reason) episode.reason = reason;
  };
  try {
    episode.messages.push(...(await chat.initialMessages()));
    for (let turn = 0; turn < limits.maxTurns; turn++) {
      let reply: ChatApiReply;
      try {
        reply = await api.complete(episode.messages, tools, {
          temperature: options.temperature,
          topP: options.topP,
          maxTokens: limits.maxTurnTokens,
          ...(options.seed === undefined ? {} : { seed: options.seed + turn }),
        });
      } catch (error) {
        episode.errors.environment++;
        stop('environment_error', `${api.label}: ${error instanceof Error ? error.message : String(error)}`);
        break;
      }
      previous = checkTokens(episode, reply, previous);
      episode.messages.push(sentBack(reply));
      episode.final = reply.content ?? '';
      const parsed = assistantMessage(reply, chat);
      const result = await stepTurn(chat, parsed, limits, episode);
      if (!result) break;
      episode.turns.push({
        reward: result.reward,
        toolCalls: parsed.message.toolCalls.length,
        finishReason: reply.finishReason,
        ...(result.error ? { error: result.error } : {}),
      });
      episode.reward += result.reward;
      if (parsed.error && limits.parseErrors !== 'respond') {
        if (limits.parseErrors === 'zero') episode.reward = 0;
        stop('parse_error', parsed.error);
        break;
      }
      if (result.done) {
        stop('done');
        break;
      }
      episode.messages.push(...(result.messages ?? []));
    }
  } finally {
    await chat.close?.();
  }
  return episode;
}

/** Counts whether this turn's prompt extends the last prompt and its sample; the tokens so far. */
function checkTokens(
  episode: ChatApiEpisode,
  reply: ChatApiReply,
  previous: number[] | null,
): number[] | null {
  if (!reply.promptTokenIds || !reply.tokenIds) return null;
  episode.tokens ??= { checked: 0, drifted: 0 };
  if (previous) {
    episode.tokens.checked++;
    const extends_ = previous.every((token, index) => reply.promptTokenIds?.[index] === token);
    if (!extends_) episode.tokens.drifted++;
  }
  return [...reply.promptTokenIds, ...reply.tokenIds];
}
