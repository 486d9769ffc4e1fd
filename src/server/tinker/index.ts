// `curricula serve --tinker`: the embedded model behind the Tinker training API, under /api/v1, so that
// the stock Tinker Python SDK (0.25, protobuf wire) and our own client can drive it. Protocol facts:
// ../shared/reference/tinker-wire-sdk-0.25.md (observed wire), tinker_public.proto.txt (schema).
// Documented in docs/tinker-serving.md, with every deviation from hosted Tinker.
// This file wires the pieces: a scope that parses protobuf bodies and refuses compressed ones (no zstd
// here: client/config says proto_compress_fwdbwd false, a `Content-Encoding` body gets 415), and the
// routes of routes-service.ts, routes-training.ts, routes-sampling.ts (batched by sample-batcher.ts),
// routes-futures.ts. At start it restores the models a previous server left in the state directory
// (durability.ts), so a restart between forward_backward and optim_step does not lose the run.
import type { FastifyInstance } from 'fastify';
import { protobufContentType } from '../../backends/tinker/wire/index.ts';
import type { ProtocolContext } from '../protocol-context.ts';
import { createDeps } from './deps.ts';
import { restoreModels } from './durability.ts';
import { unsupportedMediaType } from './http-errors.ts';
import { registerFutureRoutes } from './routes-futures.ts';
import { registerSamplingRoutes } from './routes-sampling.ts';
import { registerServiceRoutes } from './routes-service.ts';
import { registerTrainingRoutes } from './routes-training.ts';
import { SampleBatcher, type SampleBatchStats } from './sample-batcher.ts';

export type { TinkerOptions } from './deps.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** asample requests served and the policy sample calls they took; set by registerTinker. */
    tinkerSampleStats?: SampleBatchStats;
  }
}

export async function registerTinker(app: FastifyInstance, context: ProtocolContext): Promise<void> {
  const deps = createDeps(context, context.tinker);
  // Models of a previous run on this state directory come back first (durability.ts).
  await restoreModels(deps);
  const batcher = new SampleBatcher(deps.futures, undefined, deps.limits);
  app.decorate('tinkerSampleStats', batcher.stats);
  await app.register(
    async (scope) => {
      scope.addContentTypeParser(protobufContentType, { parseAs: 'buffer' }, (_request, body, done) =>
        done(null, body),
      );
      scope.addHook('onRequest', async (request) => {
        const encoding = request.headers['content-encoding'];
        if (encoding !== undefined && encoding !== 'identity') {
          throw unsupportedMediaType(
            `Content-Encoding '${encoding}' is not supported (no zstd here; client/config says proto_compress_fwdbwd: false): send the body uncompressed`,
          );
        }
      });
      scope.addHook('preClose', async () => {
        deps.futures.close();
      });
      scope.addHook('onClose', async () => {
        await deps.state.close();
      });
      registerServiceRoutes(scope, deps);
      registerTrainingRoutes(scope, deps);
      registerSamplingRoutes(scope, deps, batcher);
      registerFutureRoutes(scope, deps);
    },
    { prefix: '/api/v1' },
  );
}
