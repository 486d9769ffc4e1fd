// POST /inference/v1/generate: vLLM's tokens-in/tokens-out route (vllm serve/disagg/api_router.py,
// protocol.py). Request {token_ids, sampling_params, model?, stream?}; response
// {request_id, choices: [{index, token_ids, logprobs, finish_reason, stop_reason}], prompt_logprobs}.
// `logprobs` per choice is the chat shape ({content: [...]}) when sampling_params.logprobs is set, else
// null; `prompt_logprobs` is vLLM's list (first entry null) when sampling_params.prompt_logprobs is set.
// Token ids go in as is (no BOS added): the caller owns tokenization, which is the point of the route.
import type { FastifyInstance } from 'fastify';
import { samplingRouteOptions } from '../limits.ts';
import { chatLogprobs, promptLogprobsVllm } from './response-parts.ts';
import { refuseStreaming, runSampling } from './run-sampling.ts';
import { generateRequestSchema, parseBody, stopList } from './schemas.ts';
import type { ServedModels } from './served-models.ts';

export function registerGenerate(app: FastifyInstance, models: ServedModels): void {
  let counter = 0;
  app.post(
    '/inference/v1/generate',
    samplingRouteOptions(app.initialConfig.bodyLimit, models.limits),
    async (request) => {
      const body = parseBody(generateRequestSchema, request.body, 'POST /inference/v1/generate');
      refuseStreaming(body.stream);
      return models.with(body.model, async (model) => {
        const { tokenizer } = await model.queue.policy();
        const params = body.sampling_params;
        const wantLogprobs = (params.logprobs ?? null) !== null;
        const wantPromptLogprobs = (params.prompt_logprobs ?? null) !== null;
        const result = await runSampling(
          model,
          {
            prompts: [body.token_ids],
            n: params.n,
            temperature: params.temperature,
            topP: params.top_p,
            maxTokens: params.max_tokens,
            stop: stopList(params.stop),
            seed: params.seed,
            includeStopString: params.include_stop_str_in_output === true,
            promptLogprobs: wantPromptLogprobs,
            topLogprobs: params.logprobs ?? 0,
          },
          models.limits,
        );
        return {
          request_id: `gen-${++counter}`,
          choices: result.completions[0].map((completion, index) => ({
            index,
            token_ids: completion.tokens,
            logprobs: wantLogprobs ? chatLogprobs(tokenizer, completion, false, params.logprobs ?? 0) : null,
            finish_reason: completion.finishReason,
            stop_reason: completion.stopReason,
          })),
          prompt_logprobs: wantPromptLogprobs
            ? promptLogprobsVllm(tokenizer, body.token_ids, result.promptLogprobs[0])
            : null,
        };
      });
    },
  );
}
