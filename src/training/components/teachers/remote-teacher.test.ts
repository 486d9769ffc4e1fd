// A remote teacher over real HTTP on loopback: `curricula serve --tinker` (in process, port 0) serves
// demo-cold, the teacher pool reaches it through the Tinker backend (a `policy`-shaped block), and one
// OPD step of the embedded ladder-cold student scores the same teacher log-probs as with the embedded
// demo-cold teacher (teacher/kl equal up to float32 rounding). The built teacher's tokenizer is checked
// against the student's (the suite tokenizer: no policy.tokenizer given).
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiKey, baseModel, startTinkerServer } from '../../../testing/backends/tinker/client/test-server.ts';
import { rlConfigSchema } from '../../rl/config.ts';
import { buildContext } from '../../rl/setup.ts';
import { rlStep } from '../../rl/step.ts';
import { teachersOf } from './component.ts';

let app: FastifyInstance;
let url: string;
const previousKey = process.env.TINKER_API_KEY;

beforeAll(async () => {
  ({ app, url } = await startTinkerServer());
  process.env.TINKER_API_KEY = apiKey;
});

afterAll(async () => {
  if (previousKey === undefined) delete process.env.TINKER_API_KEY;
  else process.env.TINKER_API_KEY = previousKey;
  await app?.close();
});

const config = (teacher: object) =>
  rlConfigSchema.parse({
    seed: 7,
    init: { checkpoint: 'examples/checkpoints/ladder-cold' },
    tasks: [{ task: 'addition', difficulties: [3] }],
    poolSize: 2,
    rollout: { groupSize: 2, maxTokens: 40 },
    algorithm: { advantage: { name: 'dr-grpo' }, loss: { name: 'importance-sampling' } },
    train: { steps: 1, batchSize: 2, learningRate: 1e-4 },
    policy: { workers: 1 },
    teacher: { pool: [teacher], opd: {} },
  });

async function teacherKl(teacher: object): Promise<Record<string, number>> {
  const ctx = await buildContext(config(teacher));
  try {
    return (await rlStep(ctx, 1, 1e-4)).metrics;
  } finally {
    await ctx.policy.close?.();
    await teachersOf(ctx)?.teachers?.close();
  }
}

describe('a remote teacher (Tinker backend, loopback)', () => {
  it('scores like the same checkpoint embedded', async () => {
    const remote = await teacherKl({
      name: 'remote',
      policy: { backend: 'tinker', tinker: { url, baseModel, backoffMs: 5, maxBackoffMs: 50 } },
    });
    const local = await teacherKl({ name: 'local', checkpoint: 'examples/checkpoints/demo-cold' });
    expect(remote['teacher/failures']).toBe(0);
    expect(remote['teacher/signal_frac']).toBe(1);
    expect(remote['teacher/kl']).toBeCloseTo(local['teacher/kl'], 4);
  }, 60_000);
});
