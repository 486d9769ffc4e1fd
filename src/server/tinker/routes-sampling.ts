// Sampling routes of `curricula serve --tinker`: create_sampling_session, asample (also the SDK's
// compute_logprobs: asample with prompt_logprobs), GET samplers/{id}.
// A sampler is a frozen policy: from save_weights_for_sampler (unnamed), from a tinker:// sampler or
// weights path, or the served base model. Requests to one sampler run one batch at a time; requests that
// arrive together with the same options are sampled in one policy call, each from its own seed
// (sample-batcher.ts).
// Mapping to the embedded sampler (src/core/policy.ts SampleOptions), with the deviations:
// - `logprobs` are log π(token) at temperature 1 (what the trainer computes), whatever the temperature;
// - stop: strings as given; token ids are decoded to their text and used as stop strings; the EOS token
//   always stops (stop reason "stop", like a stop string); top_k > 0 and topk_prompt_logprobs > 0 are
//   refused (400), as is an empty prompt;
// - a request without a seed gets the next value of a server counter (reproducible per server start);
// - prompt_logprobs: the first position is null (NaN on the protobuf wire), as in Tinker.
// Bounds (src/server/limits.ts): num_samples ≤ the rows limit, and the request's estimated model memory
// (num_samples rows of KV cache, the prompt's prefill) ≤ the per-request budget, else a 400 naming the
// limit; the batcher merges concurrent requests only up to the same bounds.

import { existsSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { UserError } from '../../core/errors.ts';
import type { PolicyBackend } from '../../core/policy.ts';
import { checkSamplingLimits } from '../limits.ts';
import { idempotencyKey, type TinkerDeps } from './deps.ts';
import { badRequest } from './http-errors.ts';
import type { Sampler } from './models.ts';
import { resolveTinkerPath } from './paths.ts';
import type { SampleBatcher } from './sample-batcher.ts';
import { createSamplingSessionSchema, parseBody, sampleSchema } from './schemas.ts';

export function registerSamplingRoutes(
  scope: FastifyInstance,
  deps: TinkerDeps,
  batcher: SampleBatcher,
): void {
  const { state, futures, context } = deps;

  const samplerForPath = (path: string): Sampler => {
    const key = `path:${path}`;
    if (state.samplers.has(key)) return state.sampler(key);
    const { dir } = resolveTinkerPath(context.stateDir, path);
    if (!existsSync(dir)) throw badRequest(`no checkpoint at ${path}`);
    return state.addSampler(key, deps.loadFrom(dir), context.modelName);
  };
  const samplerForBase = (baseModel: string): Sampler => {
    if (baseModel !== context.modelName) {
      throw badRequest(`unknown base_model '${baseModel}'; this server serves '${context.modelName}'`);
    }
    const key = `base:${baseModel}`;
    return state.samplers.has(key)
      ? state.sampler(key)
      : state.addSampler(key, context.loadPolicy(), baseModel);
  };

  scope.post('/create_sampling_session', async (request) => {
    const body = parseBody(createSamplingSessionSchema, request.body, 'create_sampling_session');
    const session = state.session(body.session_id);
    const seq = body.sampling_session_seq_id ?? session.nextSamplerSeq;
    session.nextSamplerSeq = Math.max(session.nextSamplerSeq, seq + 1);
    const id = `${session.id}:sample:${seq}`;
    let policy: Promise<PolicyBackend>;
    if (body.model_path != null) {
      const { dir } = resolveTinkerPath(context.stateDir, body.model_path);
      if (!existsSync(dir)) throw badRequest(`create_sampling_session: no checkpoint at ${body.model_path}`);
      policy = deps.loadFrom(dir);
    } else if (body.base_model != null) {
      if (body.base_model !== context.modelName) {
        throw badRequest(
          `create_sampling_session: unknown base_model '${body.base_model}'; this server serves '${context.modelName}'`,
        );
      }
      policy = context.loadPolicy();
    } else {
      throw badRequest('create_sampling_session: needs model_path or base_model');
    }
    await policy;
    state.addSampler(id, policy, context.modelName);
    return { type: 'create_sampling_session', sampling_session_id: id };
  });

  scope.get('/samplers/:id', async (request) => {
    const sampler = state.sampler((request.params as { id: string }).id);
    return { sampler_id: sampler.id, base_model: sampler.baseModel };
  });

  scope.post('/asample', async (request) => {
    const key = idempotencyKey(request);
    const existing = futures.lookup(key);
    if (existing) return existing;
    const body = parseBody(sampleSchema, request.body, 'asample');
    const prompt = body.prompt.chunks.flatMap((chunk) => chunk.tokens);
    if (prompt.length === 0) throw badRequest('asample: empty prompt');
    const params = body.sampling_params;
    if (params.top_k != null && params.top_k > 0)
      throw badRequest('asample: top_k is not supported by this server (send -1)');
    if (body.topk_prompt_logprobs != null && body.topk_prompt_logprobs > 0) {
      throw badRequest('asample: topk_prompt_logprobs is not supported by this server');
    }
    const sampler =
      body.sampling_session_id != null
        ? state.sampler(body.sampling_session_id)
        : body.model_path != null
          ? samplerForPath(body.model_path)
          : body.base_model != null
            ? samplerForBase(body.base_model)
            : undefined;
    if (sampler === undefined)
      throw badRequest('asample: needs sampling_session_id, model_path or base_model');
    // Priced on the sampler's policy (its config); a policy that failed to load is reported by the batch.
    const policy = await sampler.policy.catch(() => null);
    let cost = { rows: body.num_samples, bytes: 0 };
    // A prompt longer than the context is not priced: the sampler refuses it in its future, as before.
    if (policy !== null && prompt.length <= policy.contextLength) {
      const maxTokens = params.max_tokens ?? Math.max(0, policy.contextLength - prompt.length);
      try {
        cost = checkSamplingLimits(policy, deps.limits, [prompt.length], body.num_samples, maxTokens);
      } catch (error) {
        if (error instanceof UserError) throw badRequest(`asample: ${error.message}`);
        throw error;
      }
    } else if (body.num_samples > deps.limits.maxRows) {
      // (no policy to price with, or a prompt the sampler will refuse: the rows bound still holds)
      throw badRequest(
        `asample: num_samples ${body.num_samples} is over the server's limit of ${deps.limits.maxRows} per request`,
      );
    }
    // A retry with the same key may have come in while the policy loaded.
    const retried = futures.lookup(key);
    if (retried) return retried;
    const options = {
      n: body.num_samples,
      temperature: params.temperature ?? 1,
      topP: params.top_p ?? 1,
      seed: params.seed ?? deps.nextSeed(),
      stop: params.stop,
      ...(params.max_tokens != null ? { maxTokens: params.max_tokens } : {}),
    };
    const envelope = futures.create(key);
    batcher.enqueue(sampler, {
      requestId: envelope.request_id,
      prompt,
      options,
      promptLogprobs: body.prompt_logprobs === true,
      rows: cost.rows,
      bytes: cost.bytes,
    });
    return envelope;
  });
}
