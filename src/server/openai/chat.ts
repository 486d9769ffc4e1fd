// POST /v1/chat/completions (platform.openai.com/docs/api-reference/chat) and vLLM's
// POST /v1/chat/completions/render, which returns the GenerateRequest that /inference/v1/generate takes
// ({token_ids, sampling_params, model}; vllm serve/render/api_router.py). Messages become a prompt through
// chat-template.ts. vLLM extensions: `return_token_ids` (response-level `prompt_token_ids`, per-choice
// `token_ids`) and `prompt_logprobs` (response level, as vLLM puts it for chat).
import type { FastifyInstance } from 'fastify';
import type { Tokenizer } from '../../core/policy.ts';
import { checkSamplingLimits, samplingRouteOptions } from '../limits.ts';
import { renderChat } from './chat-template.ts';
import { ConversationMemory, type ReplyMessage, TemplateChat, templateTokenizer } from './chat-tools.ts';
import { chatLogprobEntry, chatLogprobs, promptLogprobsVllm, usage } from './response-parts.ts';
import { checkPrompts, encodePrompt, runSampling } from './run-sampling.ts';
import { type ChatRequest, chatRequestSchema, parseBody, stopList } from './schemas.ts';
import type { ServedModels } from './served-models.ts';
import { chatEvents, type StreamChoice, sendEvents, tokenPieces } from './stream.ts';

function maxTokens(body: ChatRequest): number | null | undefined {
  return body.max_completion_tokens ?? body.max_tokens;
}

/** The prompt of a chat request: through the model's own template when it has one (chat-tools.ts). */
function chatPrompt(
  tokenizer: Tokenizer,
  body: ChatRequest,
  modelId: string,
  memory: ConversationMemory,
  route: string,
): { tokens: number[]; reused: number; chat: TemplateChat | null } {
  const template = templateTokenizer(tokenizer);
  if (!template) return { tokens: encodePrompt(tokenizer, renderChat(body, route)), reused: 0, chat: null };
  const chat = new TemplateChat(template, body, modelId);
  return { ...chat.prompt(memory), chat };
}

export function registerChat(app: FastifyInstance, models: ServedModels): void {
  let counter = 0;
  const memory = new ConversationMemory();
  const options = samplingRouteOptions(app.initialConfig.bodyLimit, models.limits);
  app.post('/v1/chat/completions', options, async (request, reply) => {
    const body = parseBody(chatRequestSchema, request.body, 'POST /v1/chat/completions');
    return models.with(body.model, async (model) => {
      const { tokenizer } = await model.queue.policy();
      const rendered = chatPrompt(tokenizer, body, model.id, memory, 'POST /v1/chat/completions');
      const prompt = rendered.tokens;
      const wantPromptLogprobs = (body.prompt_logprobs ?? null) !== null;
      const result = await runSampling(
        model,
        {
          prompts: [prompt],
          n: body.n,
          temperature: body.temperature,
          topP: body.top_p,
          maxTokens: maxTokens(body),
          stop: stopList(body.stop),
          seed: body.seed,
          includeStopString: body.include_stop_str_in_output === true,
          promptLogprobs: wantPromptLogprobs,
          topLogprobs: body.logprobs ? (body.top_logprobs ?? 0) : 0,
        },
        models.limits,
      );
      const asIds = body.return_tokens_as_token_ids === true;
      const serial = ++counter;
      const id = `chatcmpl-${serial}`;
      const created = Math.floor(Date.now() / 1000);
      const replies = result.completions[0].map((completion, index): ReplyMessage => {
        if (!rendered.chat) return { role: 'assistant', content: completion.text };
        const reply = rendered.chat.reply(completion, index, String(serial));
        rendered.chat.remember(memory, reply, [...prompt, ...completion.tokens]);
        return reply;
      });
      const finish = (index: number) =>
        replies[index].tool_calls ? 'tool_calls' : result.completions[0][index].finishReason;
      if (body.stream) {
        const streamed: StreamChoice[] = result.completions[0].map((completion, index) => ({
          index,
          pieces: rendered.chat ? [] : tokenPieces(tokenizer, completion.tokens, completion.text),
          ...(rendered.chat && { whole: replies[index], tokens: completion.tokens }),
          finishReason: finish(index),
          stopReason: completion.stopReason,
          ...(body.logprobs && {
            logprobs: (token: number) =>
              chatLogprobEntry(tokenizer, completion, token, asIds, body.top_logprobs ?? 0),
          }),
        }));
        const totals = body.stream_options?.include_usage ? usage([prompt], result.completions) : null;
        return sendEvents(reply, chatEvents({ id, created, model: model.id }, streamed, totals));
      }
      const choices = result.completions[0].map((completion, index) => ({
        index,
        message: replies[index],
        logprobs: body.logprobs ? chatLogprobs(tokenizer, completion, asIds, body.top_logprobs ?? 0) : null,
        finish_reason: finish(index),
        stop_reason: completion.stopReason,
        ...(body.return_token_ids ? { token_ids: completion.tokens } : {}),
      }));
      return {
        id,
        object: 'chat.completion',
        created,
        model: model.id,
        choices,
        usage: usage([prompt], result.completions),
        ...(body.return_token_ids ? { prompt_token_ids: prompt } : {}),
        ...(rendered.chat ? { prompt_reused_tokens: rendered.reused } : {}),
        ...(wantPromptLogprobs
          ? { prompt_logprobs: promptLogprobsVllm(tokenizer, prompt, result.promptLogprobs[0]) }
          : {}),
      };
    });
  });

  app.post('/v1/chat/completions/render', options, async (request) => {
    const body = parseBody(chatRequestSchema, request.body, 'POST /v1/chat/completions/render');
    return models.with(body.model, async (model) => {
      const policy = await model.queue.policy();
      const route = 'POST /v1/chat/completions/render';
      const prompt = chatPrompt(policy.tokenizer, body, model.id, memory, route).tokens;
      checkPrompts(policy, [prompt], maxTokens(body));
      checkSamplingLimits(
        policy,
        models.limits,
        [prompt.length],
        body.n,
        maxTokens(body) ?? policy.contextLength - prompt.length,
      );
      const samplingParams = {
        n: body.n,
        temperature: body.temperature ?? 1,
        top_p: body.top_p ?? 1,
        max_tokens: maxTokens(body) ?? policy.contextLength - prompt.length,
        stop: stopList(body.stop),
        seed: body.seed ?? null,
        logprobs: body.logprobs ? (body.top_logprobs ?? 0) : null,
        prompt_logprobs: body.prompt_logprobs ?? null,
        include_stop_str_in_output: body.include_stop_str_in_output === true,
      };
      return {
        token_ids: prompt,
        sampling_params: samplingParams,
        model: model.id,
        features: null,
        stream: false,
      };
    });
  });
}
