// Training routes of `curricula serve --tinker`: create_model, forward_backward (protobuf or JSON; also the
// legacy JSON /forward), optim_step, save_weights, load_weights, save_weights_for_sampler, get_info.
// Each mutating call answers with a future (futures.ts) and runs in the model's seq_id order
// (sequencer.ts) — except create_model, which has no seq_id and loads the model's policy.
// Deviations (docs/tinker-serving.md): LoRA configs are recorded, but all weights train; adam_params map
// to our AdamW (grad_clip_norm 0 = no clipping); checkpoints are our own format (safetensors + JSON).
// An unnamed save_weights_for_sampler copies the weights in memory when the policy can
// (EmbeddedBackend.snapshotForSampling), else saves and reloads them through a temporary directory.
// Durability (durability.ts): create_model, optim_step and load_weights write the model's durable state
// before their future resolves; an optim_step on a restored model that lost requests in the restart is
// refused with gradient_lost (gradient-lost.ts) and the model goes back to its durable state.
import { copyFileSync, existsSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import {
  decodeForwardBackwardRequest,
  decodeJsonForwardBackwardRequest,
  type ForwardBackwardRequest,
  protobufContentType,
} from '../../backends/tinker/wire/index.ts';
import { UserError } from '../../core/errors.ts';
import type { PolicyBackend } from '../../core/policy.ts';
import { checkTrainingLimits } from '../limits.ts';
import {
  errorCategory,
  errorMessage,
  idempotencyKey,
  submitModelOperation,
  type TinkerDeps,
} from './deps.ts';
import { persistModel, reloadPolicy } from './durability.ts';
import { GradientLostError } from './gradient-lost.ts';
import { badRequest } from './http-errors.ts';
import { releasePolicy } from './models.ts';

/** A policy that can copy its weights for sampling without the disk (EmbeddedBackend). */
function hasSamplingSnapshot(
  policy: PolicyBackend,
): policy is PolicyBackend & { snapshotForSampling(): PolicyBackend } {
  return typeof (policy as { snapshotForSampling?: unknown }).snapshotForSampling === 'function';
}

import { checkName, checkpointDir, resolveTinkerPath, tinkerPath } from './paths.ts';
import {
  createModelSchema,
  loadWeightsSchema,
  modelRefSchema,
  optimStepSchema,
  parseBody,
  saveForSamplerSchema,
  saveWeightsSchema,
} from './schemas.ts';
import { Sequencer } from './sequencer.ts';
import { prepareRequest, runForwardBackward } from './training.ts';

function decodeForwardBackward(request: FastifyRequest, forwardOnly: boolean): ForwardBackwardRequest {
  const type = String(request.headers['content-type'] ?? '');
  if (type.includes(protobufContentType)) {
    if (!Buffer.isBuffer(request.body)) throw badRequest('forward_backward: empty protobuf body');
    const decoded = decodeForwardBackwardRequest(new Uint8Array(request.body));
    return forwardOnly ? { ...decoded, forwardOnly: true } : decoded;
  }
  return decodeJsonForwardBackwardRequest(request.body, forwardOnly);
}

export function registerTrainingRoutes(scope: FastifyInstance, deps: TinkerDeps): void {
  const { state, futures, context } = deps;

  scope.post('/create_model', async (request) => {
    const existing = futures.lookup(idempotencyKey(request));
    if (existing) return existing;
    const body = parseBody(createModelSchema, request.body, 'create_model');
    const session = state.session(body.session_id);
    if (body.base_model !== context.modelName) {
      throw badRequest(
        `create_model: unknown base_model '${body.base_model}'; this server serves '${context.modelName}'`,
      );
    }
    const modelSeq = body.model_seq_id ?? session.nextModelSeq;
    session.nextModelSeq = Math.max(session.nextModelSeq, modelSeq + 1);
    const id = `${session.id}:train:${modelSeq}`;
    if (state.models.has(id))
      throw badRequest(`create_model: model ${id} already exists (model_seq_id ${modelSeq} reused)`);
    const policy = context.loadPolicy();
    const model = {
      id,
      sessionId: session.id,
      baseModel: body.base_model,
      loraConfig: body.lora_config ?? null,
      policy,
      sequencer: new Sequencer(deps.options.seqWaitMs, policy),
      optimizerSteps: 0,
      modelSeq,
      lastSeqId: null,
      completed: [],
    };
    state.models.set(id, model);
    const envelope = futures.create(idempotencyKey(request), id);
    policy.then(
      () =>
        persistModel(deps, model, false).then(() =>
          futures.resolve(envelope.request_id, {
            kind: 'json',
            body: { type: 'create_model', model_id: id },
          }),
        ),
      (error) =>
        futures.fail(envelope.request_id, `create_model: ${errorMessage(error)}`, errorCategory(error)),
    );
    return envelope;
  });

  const forwardBackwardRoute = (forwardOnly: boolean) => async (request: FastifyRequest) => {
    const existing = futures.lookup(idempotencyKey(request));
    if (existing) return existing;
    const decoded = decodeForwardBackward(request, forwardOnly);
    const model = state.model(decoded.modelId);
    return submitModelOperation(
      deps,
      request,
      model,
      decoded.seqId,
      () => {
        const prepared = prepareRequest(decoded);
        const tokens = prepared.datums.reduce((sum, datum) => sum + datum.sequence.length, 0);
        checkTrainingLimits(deps.limits, tokens, forwardOnly ? 'forward' : 'forward_backward');
        return prepared;
      },
      async (prepared) => ({
        kind: 'forward_backward',
        output: await runForwardBackward(await model.policy, prepared),
      }),
    );
  };
  scope.post('/forward_backward', forwardBackwardRoute(false));
  scope.post('/forward', forwardBackwardRoute(true));

  scope.post('/optim_step', async (request) => {
    const body = parseBody(optimStepSchema, request.body, 'optim_step');
    const model = state.model(body.model_id);
    const adam = body.adam_params;
    return submitModelOperation(
      deps,
      request,
      model,
      body.seq_id ?? undefined,
      () => ({
        learningRate: adam.learning_rate,
        ...(adam.beta1 != null && adam.beta2 != null
          ? { betas: [adam.beta1, adam.beta2] as [number, number] }
          : {}),
        ...(adam.eps != null ? { eps: adam.eps } : {}),
        ...(adam.weight_decay != null ? { weightDecay: adam.weight_decay } : {}),
        // Tinker: grad_clip_norm 0 = no clipping; ours: gradClip 0/undefined = no clipping.
        ...(adam.grad_clip_norm ? { gradClip: adam.grad_clip_norm } : {}),
      }),
      async (options, call) => {
        const lost = model.gradientLost;
        if (lost) {
          model.gradientLost = undefined;
          await reloadPolicy(deps, model);
          throw new GradientLostError(lost.from, lost.to, body.seq_id ?? lost.to + 1);
        }
        const result = await (await model.policy).optimStep(options);
        model.optimizerSteps += 1;
        model.lastSeqId = body.seq_id ?? model.lastSeqId;
        const resultBody = {
          type: 'optim_step',
          metrics: { 'grad_norm:mean': result.gradNorm, 'optimizer_step:max': result.step },
        };
        model.completed.push({ key: call.key ?? null, requestId: call.requestId, body: resultBody });
        await persistModel(deps, model, true);
        return { kind: 'json', body: resultBody };
      },
    );
  });

  scope.post('/save_weights', async (request) => {
    const body = parseBody(saveWeightsSchema, request.body, 'save_weights');
    const model = state.model(body.model_id);
    return submitModelOperation(
      deps,
      request,
      model,
      body.seq_id ?? undefined,
      () => {
        const name = checkName(body.path ?? `checkpoint-${body.seq_id ?? Date.now()}`, 'save_weights path');
        return { name, dir: checkpointDir(context.stateDir, model.id, 'weights', name) };
      },
      async ({ name, dir }) => {
        if (existsSync(dir) && !body.overwrite)
          throw new UserError(`save_weights: checkpoint '${name}' exists (send overwrite: true)`);
        await (await model.policy).save(dir);
        return { kind: 'json', body: { type: 'save_weights', path: tinkerPath(model.id, 'weights', name) } };
      },
    );
  });

  scope.post('/load_weights', async (request) => {
    const body = parseBody(loadWeightsSchema, request.body, 'load_weights');
    const model = state.model(body.model_id);
    return submitModelOperation(
      deps,
      request,
      model,
      body.seq_id ?? undefined,
      () => resolveTinkerPath(context.stateDir, body.path),
      async ({ dir }) => {
        if (!existsSync(dir)) throw new UserError(`load_weights: no checkpoint at ${body.path}`);
        let source = dir;
        if (!body.optimizer) {
          // Weights only: a staging copy without the optimizer files, so Adam starts fresh (as Tinker's
          // load_weights with optimizer=false does).
          source = checkpointDir(context.stateDir, model.id, 'weights', `staging-load-${body.seq_id ?? 0}`);
          rmSync(source, { recursive: true, force: true });
          mkdirSync(source, { recursive: true });
          for (const file of ['model.safetensors', 'config.json', 'tokenizer.json'])
            copyFileSync(join(dir, file), join(source, file));
        }
        try {
          const loaded = await deps.loadFrom(source);
          const previous = await model.policy;
          model.policy = Promise.resolve(loaded);
          await releasePolicy(previous);
        } finally {
          if (source !== dir) rmSync(source, { recursive: true, force: true });
        }
        model.lastSeqId = body.seq_id ?? model.lastSeqId;
        await persistModel(deps, model, true);
        return { kind: 'json', body: { type: 'load_weights', path: body.path } };
      },
    );
  });

  scope.post('/save_weights_for_sampler', async (request) => {
    const body = parseBody(saveForSamplerSchema, request.body, 'save_weights_for_sampler');
    const model = state.model(body.model_id);
    const session = state.session(model.sessionId);
    return submitModelOperation(
      deps,
      request,
      model,
      body.seq_id ?? undefined,
      () => {
        if (body.path != null) {
          const name = checkName(body.path, 'save_weights_for_sampler path');
          return {
            name,
            named: true,
            dir: checkpointDir(context.stateDir, model.id, 'sampler_weights', name),
          };
        }
        const seq = body.sampling_session_seq_id ?? session.nextSamplerSeq;
        session.nextSamplerSeq = Math.max(session.nextSamplerSeq, seq + 1);
        const name = `ephemeral-${seq}`;
        return {
          name,
          named: false,
          seq,
          dir: checkpointDir(context.stateDir, model.id, 'sampler_weights', name),
        };
      },
      async (target) => {
        if (target.named) {
          await (await model.policy).save(target.dir);
          return {
            kind: 'json',
            body: {
              type: 'save_weights_for_sampler',
              path: tinkerPath(model.id, 'sampler_weights', target.name),
            },
          };
        }
        const samplerId = `${session.id}:sample:${target.seq}`;
        const trained = await model.policy;
        if (hasSamplingSnapshot(trained)) {
          // In memory: the same weights as the save → load round trip, without the disk.
          state.addSampler(samplerId, Promise.resolve(trained.snapshotForSampling()), model.baseModel);
        } else {
          await trained.save(target.dir);
          try {
            const policy = await deps.loadFrom(target.dir);
            state.addSampler(samplerId, Promise.resolve(policy), model.baseModel);
          } finally {
            rmSync(target.dir, { recursive: true, force: true });
          }
        }
        return { kind: 'json', body: { type: 'save_weights_for_sampler', sampling_session_id: samplerId } };
      },
    );
  });

  scope.post('/get_info', async (request) => {
    const body = parseBody(modelRefSchema, request.body, 'get_info');
    const model = state.model(body.model_id);
    const rank = model.loraConfig?.rank;
    return {
      type: 'get_info',
      model_id: model.id,
      model_data: { arch: 'curricula-embedded-transformer', model_name: model.baseModel, tokenizer_id: null },
      is_lora: false,
      lora_rank: typeof rank === 'number' ? rank : null,
      model_name: model.baseModel,
      // Not in Tinker: how many optimizer steps this model executed (retries must never add one).
      optimizer_steps: model.optimizerSteps,
      lora_config: model.loraConfig,
    };
  });
}
