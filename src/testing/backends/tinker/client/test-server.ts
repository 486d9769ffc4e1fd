// Test helper: `curricula serve --tinker` in process (buildServer, protocols ['tinker'], port 0) on the
// real demo-cold checkpoint, and an in-process reference policy of the same checkpoint.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { EmbeddedBackend } from '../../../../policy/embedded-backend.ts';
import { buildServer } from '../../../../server/app.ts';
import { rlConfigSchema } from '../../../../training/rl/config.ts';

export const checkpoint = resolve(import.meta.dirname, '../../../../../examples/checkpoints/demo-cold');
export const apiKey = 'tml-client-test-key';
export const baseModel = 'demo-cold';

export interface TestServerOptions {
  /** Reuse a state directory (a restart); default: a fresh temporary one. */
  stateDir?: string;
  /** Restore/durability log lines (default: dropped). */
  log?: (line: string) => void;
  /** The served base model (default demo-cold). */
  checkpoint?: string;
}

export async function startTinkerServer(
  port = 0,
  options: TestServerOptions = {},
): Promise<{ app: FastifyInstance; url: string; stateDir: string }> {
  const stateDir = options.stateDir ?? mkdtempSync(join(tmpdir(), 'curricula-tinker-client-'));
  const served = options.checkpoint ?? checkpoint;
  const app = await buildServer({
    protocols: ['tinker'],
    apiKey,
    context: {
      checkpoint: served,
      modelName: baseModel,
      loadPolicy: () => EmbeddedBackend.load(served),
      loadPolicyFrom: (dir) => EmbeddedBackend.load(dir),
      stateDir,
      tinker: { longPollMs: 300, seqWaitMs: 1500, restoreGraceMs: 200, log: options.log ?? (() => {}) },
    },
  });
  const url = await app.listen({ host: '127.0.0.1', port });
  return { app, url, stateDir };
}

/** Client options for tests: fast backoff, the test key. */
export function clientOptions(url: string, extra: Record<string, unknown> = {}) {
  return { url, baseModel, apiKey, backoffMs: 5, maxBackoffMs: 50, ...extra };
}

/**
 * The small RL run of the Tinker run tests: 2-digit addition from demo-cold at seed 11, 8 samples of at
 * most 24 tokens per problem, no evaluation; `policy` and the step count, batch and learning rate vary.
 */
export function smallRunConfig(
  name: string,
  runsDir: string,
  policy: Record<string, unknown>,
  train: { steps: number; batchSize: number; learningRate: number },
  extra: Record<string, unknown> = {},
) {
  return rlConfigSchema.parse({
    name,
    runsDir,
    seed: 11,
    init: { checkpoint },
    tasks: [{ task: 'addition', difficulties: [2] }],
    poolSize: 8,
    rollout: { groupSize: 8, maxTokens: 24 },
    train,
    eval: { every: 0, problemsPerDifficulty: 1, samples: 2 },
    policy,
    ...extra,
  });
}
