// POST /api/v1/retrieve_future: the long poll (tinker-wire-sdk-0.25.md §4).
// - pending after `longPollMs` → `{"type":"try_again", "request_id", "queue_state":"active"}`;
// - failed → `{"error": message, "category": "user"|"server"}` (HTTP 200: the SDK reads the body), plus
//   `code` and its details for errors a client can act on (gradient_lost: gradient-lost.ts);
// - a forward_backward / sample result → protobuf (`application/x-protobuf`) when the request's Accept
//   names it (the SDK ≥ 0.25 always does and refuses JSON), else the legacy JSON form;
// - other results → JSON; unknown request_id → 404 (the SDK stops polling).
import type { FastifyInstance } from 'fastify';
import {
  encodeForwardBackwardOutput,
  encodeSampleResponse,
  forwardBackwardOutputToJson,
  protobufContentType,
  sampleResponseToJson,
} from '../../backends/tinker/wire/index.ts';
import type { TinkerDeps } from './deps.ts';
import { notFound } from './http-errors.ts';
import { parseBody, retrieveFutureSchema } from './schemas.ts';

export function registerFutureRoutes(scope: FastifyInstance, deps: TinkerDeps): void {
  scope.post('/retrieve_future', async (request, reply) => {
    const { request_id } = parseBody(retrieveFutureSchema, request.body, 'retrieve_future');
    const status = await deps.futures.wait(request_id, deps.options.longPollMs);
    if (status === undefined) throw notFound(`unknown request_id '${request_id}'`);
    if (status.state === 'pending') return { type: 'try_again', request_id, queue_state: 'active' };
    if (status.state === 'failed') {
      const { error, category, code, details } = status;
      return { error, category, ...(code ? { code, ...details } : {}) };
    }
    const { result } = status;
    if (result.kind === 'json') return result.body;
    const wantsProtobuf = String(request.headers.accept ?? '').includes(protobufContentType);
    if (result.kind === 'forward_backward') {
      if (!wantsProtobuf) return forwardBackwardOutputToJson(result.output);
      return reply.type(protobufContentType).send(Buffer.from(encodeForwardBackwardOutput(result.output)));
    }
    if (!wantsProtobuf) return sampleResponseToJson(result.response);
    return reply.type(protobufContentType).send(Buffer.from(encodeSampleResponse(result.response)));
  });
}
