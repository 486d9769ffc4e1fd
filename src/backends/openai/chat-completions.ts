// A chat model behind any OpenAI-compatible server, at the level of messages (issue 30 item 5): one
// assistant turn per request to POST /v1/chat/completions with the conversation and the tools (OpenAI's
// `tools`), the turn back as content, `reasoning_content` and `tool_calls` — the server renders and
// parses with the model's own chat template (vLLM, SGLang, hosted APIs, `curricula serve --openai`).
// What the sampled tokens were is the server's to say: with `returnTokenIds` the request asks for vLLM's
// `return_token_ids` (prompt_token_ids, choices[].token_ids), which the episode runner uses to check that
// each turn's prompt extends the last one (environments/chat/chat-api-episode.ts); a server that does
// not return them (OpenAI's own API refuses the field: leave it off) is run without that check.
// Requests go through OpenAiHttpClient (timeouts, bounded retries on 429/5xx/dropped connections); a
// response that is not a chat completion is an OpenAiRequestError naming the server and what is wrong.
import { z } from 'zod';
import { OpenAiHttpClient, OpenAiRequestError } from '../../core/http-client.ts';
import { Rng } from '../../core/rng.ts';

/** One tool call as the server returned it (arguments: the JSON text the model wrote). */
export interface ChatApiToolCall {
  id: string;
  name: string;
  arguments: string;
}

/** One assistant turn as the server returned it. */
export interface ChatApiReply {
  content: string | null;
  reasoning?: string;
  toolCalls: ChatApiToolCall[];
  finishReason: string;
  /** With returnTokenIds, when the server gives them. */
  promptTokenIds?: number[];
  tokenIds?: number[];
}

/** What one turn is sampled with. */
export interface ChatApiTurnOptions {
  temperature: number;
  topP: number;
  maxTokens?: number;
  seed?: number;
}

/** Sends a conversation and its tools; answers with the next assistant turn. */
export interface ChatApi {
  /** The server and model, for messages. */
  readonly label: string;
  complete(
    messages: readonly object[],
    tools: readonly object[],
    options: ChatApiTurnOptions,
  ): Promise<ChatApiReply>;
}

export interface ChatCompletionsOptions {
  /** Server root, e.g. http://127.0.0.1:8000 (/v1/chat/completions is appended). */
  baseUrl: string;
  model?: string;
  apiKey?: string;
  /** Ask for vLLM's return_token_ids (default true). */
  returnTokenIds?: boolean;
  timeoutMs?: number;
  maxRetries?: number;
  fetch?: typeof fetch;
}

const replySchema = z.object({
  choices: z
    .array(
      z.object({
        message: z.object({
          content: z.string().nullish(),
          reasoning_content: z.string().nullish(),
          tool_calls: z
            .array(
              z.object({
                id: z.string(),
                function: z.object({ name: z.string(), arguments: z.string() }),
              }),
            )
            .nullish(),
        }),
        finish_reason: z.string().nullish(),
        token_ids: z.array(z.number().int().nonnegative()).nullish(),
      }),
    )
    .min(1),
  prompt_token_ids: z.array(z.number().int().nonnegative()).nullish(),
});

/** The chat API of an OpenAI-compatible server. */
export class ChatCompletionsClient implements ChatApi {
  readonly label: string;
  private readonly http: OpenAiHttpClient;

  constructor(private readonly options: ChatCompletionsOptions) {
    this.http = new OpenAiHttpClient({ ...options, rng: new Rng(0) });
    this.label = `${this.http.baseUrl}${options.model ? `#${options.model}` : ''}`;
  }

  async complete(
    messages: readonly object[],
    tools: readonly object[],
    turn: ChatApiTurnOptions,
  ): Promise<ChatApiReply> {
    const response = await this.http.post('/v1/chat/completions', {
      ...(this.options.model ? { model: this.options.model } : {}),
      messages,
      ...(tools.length > 0 ? { tools } : {}),
      temperature: turn.temperature,
      top_p: turn.topP,
      ...(turn.maxTokens === undefined ? {} : { max_tokens: turn.maxTokens }),
      ...(turn.seed === undefined ? {} : { seed: turn.seed }),
      ...(this.options.returnTokenIds === false ? {} : { return_token_ids: true }),
    });
    const parsed = replySchema.safeParse(response.body);
    if (!parsed.success)
      throw new OpenAiRequestError(
        `POST ${this.http.baseUrl}/v1/chat/completions: not a chat completion (${parsed.error.issues
          .slice(0, 2)
          .map((issue) => `${issue.path.join('.') || '(body)'}: ${issue.message}`)
          .join('; ')})`,
        response.status,
      );
    const [choice] = parsed.data.choices;
    const reply: ChatApiReply = {
      content: choice.message.content ?? null,
      toolCalls: (choice.message.tool_calls ?? []).map((call) => ({
        id: call.id,
        name: call.function.name,
        arguments: call.function.arguments,
      })),
      finishReason: choice.finish_reason ?? 'stop',
    };
    if (choice.message.reasoning_content) reply.reasoning = choice.message.reasoning_content;
    if (parsed.data.prompt_token_ids && choice.token_ids) {
      reply.promptTokenIds = parsed.data.prompt_token_ids;
      reply.tokenIds = choice.token_ids;
    }
    return reply;
  }
}
