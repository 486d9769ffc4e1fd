// POST /v1/completions (OpenAI legacy completions, platform.openai.com/docs/api-reference/completions,
// plus vLLM's extensions). `prompt` is a string, a list of strings, a token-id list or a list of those;
// a string prompt is tokenized as BOS + text (the embedded model's training format), a token-id prompt
// is taken as is. choices[i·n + j] is sample j of prompt i, as in OpenAI's API.
// With `return_token_ids` each choice carries `prompt_token_ids` and `token_ids` (vLLM); with
// `prompt_logprobs` each choice carries vLLM's `[null, {id: {logprob, rank, decoded_token}}, …]`.
// `echo` prepends the prompt text (and, with logprobs, the prompt tokens' log-probs, the first null).
import type { FastifyInstance } from 'fastify';
import { UserError } from '../../core/errors.ts';
import type { Tokenizer } from '../../core/policy.ts';
import { samplingRouteOptions } from '../limits.ts';
import { completionLogprobs, promptLogprobsVllm, usage } from './response-parts.ts';
import { encodePrompt, runSampling } from './run-sampling.ts';
import { type CompletionRequest, completionRequestSchema, parseBody, stopList } from './schemas.ts';
import type { ServedModels } from './served-models.ts';
import { completionEvents, type StreamChoice, sendEvents, tokenPieces } from './stream.ts';

function promptList(prompt: CompletionRequest['prompt'], tokenizer: Tokenizer): number[][] {
  if (typeof prompt === 'string') return [encodePrompt(tokenizer, prompt)];
  if (prompt.length > 0 && typeof prompt[0] === 'number') return [prompt as number[]];
  return (prompt as Array<string | number[]>).map((entry) =>
    typeof entry === 'string' ? encodePrompt(tokenizer, entry) : entry,
  );
}

export function registerCompletions(app: FastifyInstance, models: ServedModels): void {
  let counter = 0;
  app.post(
    '/v1/completions',
    samplingRouteOptions(app.initialConfig.bodyLimit, models.limits),
    async (request, reply) => {
      const body = parseBody(completionRequestSchema, request.body, 'POST /v1/completions');
      if (body.best_of !== undefined && body.best_of !== null && body.best_of !== body.n) {
        throw new UserError('best_of other than n is not supported');
      }
      // The lease keeps this model version open until the response is built (a reload swaps the id only).
      return models.with(body.model, async (model) => {
        const policy = await model.queue.policy();
        const { tokenizer } = policy;
        const prompts = promptList(body.prompt, tokenizer);
        const wantLogprobs = body.logprobs !== undefined && body.logprobs !== null;
        const echo = body.echo === true;
        const result = await runSampling(
          model,
          {
            prompts,
            n: body.n,
            temperature: body.temperature,
            topP: body.top_p,
            maxTokens: body.max_tokens,
            stop: stopList(body.stop),
            seed: body.seed,
            includeStopString: body.include_stop_str_in_output === true,
            promptLogprobs: (body.prompt_logprobs ?? null) !== null || (echo && wantLogprobs),
            topLogprobs: body.logprobs ?? 0,
          },
          models.limits,
        );
        const asIds = body.return_tokens_as_token_ids === true;
        const id = `cmpl-${++counter}`;
        const created = Math.floor(Date.now() / 1000);
        if (body.stream) {
          const streamed: StreamChoice[] = result.completions.flatMap((samples, promptIndex) =>
            samples.map((completion, sampleIndex) => {
              const echoed = echo ? tokenizer.decode(prompts[promptIndex]) : '';
              const pieces = tokenPieces(tokenizer, completion.tokens, completion.text);
              return {
                index: promptIndex * body.n + sampleIndex,
                pieces: echoed ? [{ text: echoed, token: -1 }, ...pieces] : pieces,
                finishReason: completion.finishReason,
                stopReason: completion.stopReason,
              };
            }),
          );
          const totals = body.stream_options?.include_usage ? usage(prompts, result.completions) : null;
          return sendEvents(reply, completionEvents({ id, created, model: model.id }, streamed, totals));
        }
        const choices = result.completions.flatMap((samples, promptIndex) => {
          const prompt = prompts[promptIndex];
          const promptText = tokenizer.decode(prompt);
          const scores = result.promptLogprobs[promptIndex];
          return samples.map((completion, sampleIndex) => ({
            index: promptIndex * body.n + sampleIndex,
            text: (echo ? promptText : '') + completion.text,
            logprobs: wantLogprobs
              ? completionLogprobs(
                  tokenizer,
                  echo ? [...prompt, ...completion.tokens] : completion.tokens,
                  echo
                    ? [...(scores ?? prompt.map(() => null)), ...completion.logprobs]
                    : completion.logprobs,
                  asIds,
                  [...(echo ? prompt.map(() => null) : []), ...(completion.topLogprobs ?? [])],
                )
              : null,
            finish_reason: completion.finishReason,
            stop_reason: completion.stopReason,
            ...(body.return_token_ids ? { prompt_token_ids: prompt, token_ids: completion.tokens } : {}),
            ...((body.prompt_logprobs ?? null) !== null
              ? { prompt_logprobs: promptLogprobsVllm(tokenizer, prompt, scores) }
              : {}),
          }));
        });
        return {
          id,
          object: 'text_completion',
          created,
          model: model.id,
          choices,
          usage: usage(prompts, result.completions),
        };
      });
    },
  );
}
