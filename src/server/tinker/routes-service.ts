// Service-level Tinker routes: client configuration, capabilities, sessions, heartbeats, telemetry
// (tinker-wire-sdk-0.25.md §2 and §5). What the answers must contain for the stock SDK:
// - client/config: `use_pyqwest_transport: false` (else the SDK imports pyqwest), `proto_compress_fwdbwd:
//   false` (no zstd here), `pjwt_auth_enabled: false` (no JWT exchange);
// - get_server_capabilities: `supported_models` listing the served model;
// - create_session: `session_id`; telemetry: exactly `{"status":"accepted"}` (anything else makes the
//   SDK re-send forever).

import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { TinkerDeps } from './deps.ts';
import { createSessionSchema, parseBody, sessionRefSchema } from './schemas.ts';

/** The served checkpoint's context length (config.json), or undefined when it cannot be read. */
function servedContextLength(checkpoint: string): number | undefined {
  try {
    const config = JSON.parse(readFileSync(join(checkpoint, 'config.json'), 'utf8'));
    const length = config?.model?.contextLength;
    return typeof length === 'number' ? length : undefined;
  } catch {
    return undefined;
  }
}

export function registerServiceRoutes(scope: FastifyInstance, deps: TinkerDeps): void {
  const clientConfig = {
    pjwt_auth_enabled: false,
    use_pyqwest_transport: false,
    proto_compress_fwdbwd: false,
    parallel_fwdbwd_chunks: true,
    fwdbwd_max_chunk_len: 1024,
    create_model_via_load_weights: false,
    sample_use_retrieve_futures: false,
  };
  scope.post('/client/config', async () => clientConfig);
  scope.post('/client/dynamic_config', async () => ({ refresh_interval_sec: 300 }));

  const contextLength = servedContextLength(deps.context.checkpoint);
  scope.get('/get_server_capabilities', async () => ({
    supported_models: [
      {
        model_name: deps.context.modelName,
        ...(contextLength !== undefined ? { max_context_length: contextLength } : {}),
      },
    ],
  }));
  scope.get('/healthz', async () => ({ status: 'ok' }));

  scope.post('/create_session', async (request) => {
    parseBody(createSessionSchema, request.body, 'create_session');
    const id = randomUUID();
    deps.state.sessions.set(id, { id, nextModelSeq: 0, nextSamplerSeq: 0, lastHeartbeat: Date.now() });
    return { type: 'create_session', session_id: id };
  });

  scope.post('/session_heartbeat', async (request) => {
    const { session_id } = parseBody(sessionRefSchema, request.body, 'session_heartbeat');
    deps.state.session(session_id).lastHeartbeat = Date.now();
    return { type: 'session_heartbeat' };
  });

  // Telemetry is accepted and dropped: nothing leaves the machine, nothing is logged.
  scope.post('/telemetry', async () => ({ status: 'accepted' }));
}
