// Shared setup of the Tinker server tests: the real server (buildServer, as `curricula serve --tinker`
// builds it) on loopback port 0 with the demo-cold checkpoint and short long-poll / seq_id waits, an
// independent in-process policy of the same checkpoint as the reference, and datum builders.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';
import type { ForwardBackwardRequest, TensorData, WireDatum } from '../../../backends/tinker/wire/index.ts';
import { EmbeddedBackend } from '../../../policy/embedded-backend.ts';
import { buildServer } from '../../../server/app.ts';
import type { RequestLimits } from '../../../server/limits.ts';
import { TestTinkerClient } from './test-client.ts';

export const checkpoint = resolve(import.meta.dirname, '../../../../examples/checkpoints/demo-cold');
export const apiKey = 'tml-test-key';

export interface TestServer {
  app: FastifyInstance;
  client: TestTinkerClient;
  /** The same checkpoint loaded in process, never trained: the expected log-probs. */
  reference: EmbeddedBackend;
  /** A new session and a new model on it; returns the model id. */
  newModel(): Promise<string>;
  close(): Promise<void>;
}

export async function startTestServer(
  options: { bodyLimit?: number; limits?: Partial<RequestLimits> } = {},
): Promise<TestServer> {
  const app = await buildServer({
    protocols: ['tinker'],
    apiKey,
    bodyLimit: options.bodyLimit,
    context: {
      checkpoint,
      modelName: 'demo-cold',
      loadPolicy: () => EmbeddedBackend.load(checkpoint),
      loadPolicyFrom: (dir) => EmbeddedBackend.load(dir),
      stateDir: mkdtempSync(join(tmpdir(), 'curricula-tinker-test-')),
      tinker: { longPollMs: 300, seqWaitMs: 1500 },
      limits: options.limits,
    },
  });
  const address = await app.listen({ host: '127.0.0.1', port: 0 });
  const client = new TestTinkerClient(address, apiKey);
  const reference = await EmbeddedBackend.load(checkpoint);
  return {
    app,
    client,
    reference,
    newModel: () => client.createModel('demo-cold'),
    close: async () => {
      await app.close();
      reference.dispose();
    },
  };
}

export const vector = (data: number[], dtype: 'float32' | 'int64' = 'float32'): TensorData => ({
  data,
  dtype,
  shape: [data.length],
});

export function expectClose(actual: number[], expected: number[], digits: number): void {
  expect(actual).toHaveLength(expected.length);
  for (let t = 0; t < actual.length; t++) expect(actual[t]).toBeCloseTo(expected[t], digits);
}

/** A Tinker datum for a full sequence: model_input = seq[:-1], target_tokens = seq[1:]. */
export function datum(sequence: number[], inputs: Record<string, number[]>): WireDatum {
  const lossFnInputs: Record<string, TensorData> = { target_tokens: vector(sequence.slice(1), 'int64') };
  for (const [name, values] of Object.entries(inputs)) lossFnInputs[name] = vector(values);
  return { modelInput: [{ type: 'encoded_text', tokens: sequence.slice(0, -1) }], lossFnInputs };
}

export const sequences = [
  [1, 40, 41, 42, 43, 44, 45],
  [1, 50, 51, 52, 53],
];

export function request(
  modelId: string,
  seqId: number,
  lossFn: string,
  data: WireDatum[],
  extra: Partial<ForwardBackwardRequest> = {},
): ForwardBackwardRequest {
  return { modelId, seqId, lossFn, data, lossFnConfig: {}, forwardOnly: false, ...extra };
}
