// What the Tinker routes share: the protocol context (served checkpoint, policy loaders, state directory),
// tunables, the session/model/sampler state and the futures, plus the one way every training operation
// is scheduled (idempotency key → same future; seq_id order → Sequencer; result or error → the future).
import type { FastifyRequest } from 'fastify';
import { UserError } from '../../core/errors.ts';
import type { PolicyBackend } from '../../core/policy.ts';
import { defaultRequestLimits, type RequestLimits } from '../limits.ts';
import type { ProtocolContext } from '../protocol-context.ts';
import { type ErrorCategory, type FutureEnvelope, type FutureResult, FutureStore } from './futures.ts';
import { GradientLostError } from './gradient-lost.ts';
import { TinkerHttpError } from './http-errors.ts';
import { TinkerState, type TrainingModel } from './models.ts';
import { defaultTinkerOptions, type TinkerOptions } from './options.ts';

export { defaultTinkerOptions, type TinkerOptions } from './options.ts';

export interface TinkerDeps {
  context: ProtocolContext;
  options: TinkerOptions;
  state: TinkerState;
  futures: FutureStore;
  /** A fresh policy from a checkpoint directory inside stateDir. */
  loadFrom(dir: string): Promise<PolicyBackend>;
  /** Seeds for sampling requests without one (a counter: reproducible, no Math.random). */
  nextSeed(): number;
  /** Per-request bounds (src/server/limits.ts). */
  limits: RequestLimits;
}

export function createDeps(context: ProtocolContext, options: Partial<TinkerOptions> = {}): TinkerDeps {
  const resolved = { ...defaultTinkerOptions, ...options };
  let seed = 0;
  return {
    context,
    options: resolved,
    state: new TinkerState(resolved.maxSamplers),
    limits: { ...defaultRequestLimits, ...context.limits },
    futures: new FutureStore(),
    loadFrom: async (dir) => {
      if (!context.loadPolicyFrom) throw new Error('this server cannot load checkpoints (no loadPolicyFrom)');
      return context.loadPolicyFrom(dir);
    },
    nextSeed: () => {
      seed = (seed + 1) % 2 ** 31;
      return seed;
    },
  };
}

/** The idempotency key of a request, scoped by route (the SDK reuses it only for retries of one call). */
export function idempotencyKey(request: FastifyRequest): string | undefined {
  const key = request.headers['x-idempotency-key'];
  return typeof key === 'string' && key !== '' ? `${request.routeOptions.url}\n${key}` : undefined;
}

/** `user` for errors in the request (bad input, unknown names, bad ranges), `server` otherwise. */
export function errorCategory(error: unknown): ErrorCategory {
  return error instanceof UserError || error instanceof RangeError || error instanceof TinkerHttpError
    ? 'user'
    : 'server';
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Schedules a training operation on a model: returns the existing future for a repeated idempotency key,
 * else checks the seq_id (400 if stale/duplicate), validates (`prepare`; a 4xx error still uses up the
 * seq_id so later requests are not held up), makes a future and runs `run` in seq_id order.
 */
export function submitModelOperation<Prepared>(
  deps: TinkerDeps,
  request: FastifyRequest,
  model: TrainingModel,
  seqId: number | undefined,
  prepare: () => Prepared,
  run: (prepared: Prepared, call: { requestId: string; key: string | undefined }) => Promise<FutureResult>,
): FutureEnvelope {
  const key = idempotencyKey(request);
  const existing = deps.futures.lookup(key);
  if (existing) return existing;
  model.sequencer.check(seqId);
  let prepared: Prepared;
  try {
    prepared = prepare();
  } catch (error) {
    model.sequencer.skip(seqId);
    if (error instanceof UserError && !(error instanceof TinkerHttpError))
      throw new TinkerHttpError(400, error.message);
    throw error;
  }
  const envelope = deps.futures.create(key, model.id);
  const id = envelope.request_id;
  model.sequencer.submit(
    seqId,
    async () => {
      try {
        deps.futures.resolve(id, await run(prepared, { requestId: id, key }));
      } catch (error) {
        if (error instanceof GradientLostError)
          deps.futures.fail(id, error.message, 'server', error.code, error.details);
        else deps.futures.fail(id, errorMessage(error), errorCategory(error));
      }
    },
    (message) => deps.futures.fail(id, message, 'user'),
  );
  return envelope;
}
