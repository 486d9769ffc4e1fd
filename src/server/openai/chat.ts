// POST /v1/chat/completions (platform.openai.com/docs/api-reference/chat) and vLLM's
// POST /v1/chat/completions/render, which returns the GenerateRequest that /inference/v1/generate takes
// ({token_ids, sampling_params, model}; vllm serve/render/api_router.py). Messages become a prompt through
// chat-template.ts. vLLM extensions: `return_token_ids` (response-level `prompt_token_ids`, per-choice
// `token_ids`) and `prompt_logprobs` (response level, as vLLM puts it for chat).
import type { FastifyInstance } from 'fastify';
import { checkSamplingLimits, samplingRouteOptions } from '../limits.ts';
import { renderChat } from './chat-template.ts';
import { chatLogprobEntry, chatLogprobs, promptLogprobsVllm, usage } from './response-parts.ts';
import { checkPrompts, encodePrompt, runSampling } from './run-sampling.ts';
import { type ChatRequest, chatRequestSchema, parseBody, stopList } from './schemas.ts';
import type { ServedModels } from './served-models.ts';
import { chatEvents, type StreamChoice, sendEvents, tokenPieces } from './stream.ts';

function maxTokens(body: ChatRequest): number | null | undefined {
  return body.max_completion_tokens ?? body.max_tokens;
}

export function registerChat(app: FastifyInstance, models: ServedModels): void {
  let counter = 0;
  const options = samplingRouteOptions(app.initialConfig.bodyLimit, models.limits);
  app.post('/v1/chat/completions', options, async (request, reply) => {
    const body = parseBody(chatRequestSchema, request.body, 'POST /v1/chat/completions');
    return models.with(body.model, async (model) => {
      const { tokenizer } = await model.queue.policy();
      const prompt = encodePrompt(tokenizer, renderChat(body.messages));
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
      const id = `chatcmpl-${++counter}`;
      const created = Math.floor(Date.now() / 1000);
      if (body.stream) {
        const streamed: StreamChoice[] = result.completions[0].map((completion, index) => ({
          index,
          pieces: tokenPieces(tokenizer, completion.tokens, completion.text),
          finishReason: completion.finishReason,
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
        message: { role: 'assistant', content: completion.text },
        logprobs: body.logprobs ? chatLogprobs(tokenizer, completion, asIds, body.top_logprobs ?? 0) : null,
        finish_reason: completion.finishReason,
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
      const prompt = encodePrompt(policy.tokenizer, renderChat(body.messages));
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
