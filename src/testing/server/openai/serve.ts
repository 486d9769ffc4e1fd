// Test support for the `curricula serve --openai` tests (request-bounds, model-failures, weight-reloads and
// openai-streaming.test.ts, chat-tools.test.ts): the real server on loopback with the demo-cold checkpoint (or a given policy), optionally with
// request limits or a wrapper around each loaded policy (fault injection), and a JSON POST.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { PolicyBackend } from '../../../core/policy.ts';
import { EmbeddedBackend } from '../../../policy/embedded-backend.ts';
import { buildServer } from '../../../server/app.ts';
import type { RequestLimits } from '../../../server/limits.ts';

export const checkpoint = resolve(import.meta.dirname, '../../../../examples/checkpoints/demo-cold');
export const prompt = 'Add: 12+7=';

export interface Served {
  app: FastifyInstance;
  url: string;
  loads: () => number;
}

/** The real server on loopback; `wrap` may replace each loaded policy (fault injection). */
export async function serve(
  options: { limits?: Partial<RequestLimits>; wrap?: (policy: EmbeddedBackend) => PolicyBackend } = {},
): Promise<Served> {
  let loads = 0;
  const load = async (dir: string): Promise<PolicyBackend> => {
    loads++;
    const policy = await EmbeddedBackend.load(dir);
    return options.wrap ? options.wrap(policy) : policy;
  };
  const app = await buildServer({
    protocols: ['openai'],
    context: {
      checkpoint,
      modelName: 'demo-cold',
      loadPolicy: () => load(checkpoint),
      loadPolicyFrom: load,
      stateDir: mkdtempSync(join(tmpdir(), 'curricula-openai-robust-')),
      limits: options.limits,
    },
  });
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  return { app, url, loads: () => loads };
}

export async function post(url: string, path: string, body: unknown): Promise<{ status: number; body: any }> {
  const response = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // plain-text answers (load_lora_adapter)
  }
  return { status: response.status, body: parsed };
}

/** A short seeded completion request that every healthy server answers. */
export const normal = { prompt, max_tokens: 6, seed: 3, return_token_ids: true };

/** The real server on loopback serving one given policy (e.g. a scripted one over another tokenizer). */
export async function serveScripted(modelName: string, policy: PolicyBackend): Promise<Served> {
  const app = await buildServer({
    protocols: ['openai'],
    context: {
      checkpoint: modelName,
      modelName,
      loadPolicy: async () => policy,
      stateDir: mkdtempSync(join(tmpdir(), 'curricula-openai-scripted-')),
    },
  });
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  return { app, url, loads: () => 1 };
}
