// Connecting to a Tinker server as the stock SDK 0.25 does (tinker-wire-sdk-0.25.md §2, seq 1–9):
// client/config → get_server_capabilities → create_session (+ a heartbeat every heartbeatMs on an
// unref'd timer, so it never keeps the process alive) → create_model (a future).
// The capability record keeps what the server said: its models and context lengths and its client
// config flags. Which losses a server accepts is probed by the conformance check (conformance.ts), not
// here: probing costs forward_backward calls, and the client needs only cross_entropy (or
// importance_sampling, see linear-loss.ts).
import { ConfigError } from '../../../core/errors.ts';
import type { TinkerHttp } from './http.ts';

export interface TinkerCapabilities {
  url: string;
  models: { name: string; maxContextLength?: number }[];
  /** client/config as the server sent it (flags such as proto_compress_fwdbwd). */
  clientConfig: Record<string, unknown>;
}

/** client/config + get_server_capabilities: what the server serves. */
export async function probeCapabilities(http: TinkerHttp, sdkVersion: string): Promise<TinkerCapabilities> {
  const clientConfig = await http.postJson('client/config', { sdk_version: sdkVersion });
  const capabilities = await http.getJson('get_server_capabilities');
  const models = Array.isArray(capabilities?.supported_models) ? capabilities.supported_models : [];
  return {
    url: http.options.baseUrl,
    clientConfig: clientConfig && typeof clientConfig === 'object' ? clientConfig : {},
    models: models
      .filter((model: any) => typeof model?.model_name === 'string')
      .map((model: any) => ({
        name: model.model_name,
        ...(typeof model.max_context_length === 'number'
          ? { maxContextLength: model.max_context_length }
          : {}),
      })),
  };
}

export interface TinkerSession {
  sessionId: string;
  /** Stops the heartbeat. */
  stop(): void;
}

export async function createSession(
  http: TinkerHttp,
  sdkVersion: string,
  heartbeatMs: number,
): Promise<TinkerSession> {
  const created = await http.postJson('create_session', {
    tags: [],
    user_metadata: {},
    sdk_version: sdkVersion,
    type: 'create_session',
  });
  const sessionId = created?.session_id;
  if (typeof sessionId !== 'string') throw new ConfigError('Tinker create_session: reply has no session_id');
  const timer = setInterval(() => {
    // A missed heartbeat is not an error (the SDK only warns after 2 minutes of them).
    http.postJson('session_heartbeat', { session_id: sessionId, type: 'session_heartbeat' }).catch(() => {});
  }, heartbeatMs);
  timer.unref();
  return { sessionId, stop: () => clearInterval(timer) };
}

/** The base model's entry, or a ConfigError listing what the server serves. */
export function servedModel(capabilities: TinkerCapabilities, baseModel: string) {
  const model = capabilities.models.find((entry) => entry.name === baseModel);
  if (!model) {
    const names = capabilities.models.map((entry) => entry.name).join(', ') || 'none';
    throw new ConfigError(
      `the Tinker server at ${capabilities.url} does not serve base model '${baseModel}'; it serves: ${names}`,
    );
  }
  return model;
}

/** create_model (a future) → the model id. */
export async function createModel(
  http: TinkerHttp,
  sessionId: string,
  baseModel: string,
  loraRank: number,
): Promise<string> {
  const envelope = await http.postJson('create_model', {
    session_id: sessionId,
    model_seq_id: 0,
    base_model: baseModel,
    lora_config: { rank: loraRank, seed: 0, train_unembed: true, train_mlp: true, train_attn: true },
    type: 'create_model',
  });
  const result = await http.retrieve(envelope.request_id, 'create_model', false);
  if (typeof result?.model_id !== 'string')
    throw new ConfigError('Tinker create_model: no model_id in result');
  return result.model_id;
}
