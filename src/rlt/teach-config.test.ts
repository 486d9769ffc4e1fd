// Bad teach configs fail with one clear line before any model is loaded or any run directory written.
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../core/errors.ts';
import { additionProblem } from '../tasks/addition.ts';
import { teach } from './teach.ts';
import { teachConfigSchema } from './teach-config.ts';

const cold = 'examples/checkpoints/ladder-cold';
const dir = mkdtempSync(join(tmpdir(), 'rlt-config-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function config(overrides: Record<string, unknown> = {}) {
  return teachConfigSchema.parse({
    name: 'bad',
    runsDir: dir,
    init: { checkpoint: cold },
    student: { checkpoint: cold },
    tasks: [{ task: 'addition', difficulties: [1, 2] }],
    poolSize: 10,
    rollout: { groupSize: 2, maxTokens: 40 },
    train: { steps: 1, batchSize: 2, learningRate: 1e-4 },
    policy: { workers: 1 },
    ...overrides,
  });
}

async function refused(overrides: Record<string, unknown>, message: RegExp): Promise<void> {
  const error = await teach(config(overrides)).then(
    () => null,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(ConfigError);
  expect((error as Error).message).toMatch(message);
  expect(existsSync(join(dir, 'bad'))).toBe(false);
}

describe('teach config checks', () => {
  it('refuses unknown keys in the rlt block and a missing student', () => {
    expect(() => teachConfigSchema.parse({ ...config(), rlt: { lambda: 1 } })).toThrow(/lambda/);
    const { student: _student, ...withoutStudent } = config();
    expect(teachConfigSchema.safeParse(withoutStudent).success).toBe(false);
  });

  it('refuses a student checkpoint that does not exist', async () => {
    await refused(
      { student: { checkpoint: join(dir, 'nowhere') } },
      /^student\.checkpoint: checkpoint .*nowhere does not exist/,
    );
  });

  it('refuses a student whose tokenizer differs from the teacher', async () => {
    const other = join(dir, 'other-tokenizer');
    cpSync(cold, other, { recursive: true });
    const tokenizer = JSON.parse(readFileSync(join(other, 'tokenizer.json'), 'utf8'));
    tokenizer.model.vocab.a = 70;
    tokenizer.model.vocab.b = 69;
    writeFileSync(join(other, 'tokenizer.json'), JSON.stringify(tokenizer));
    await refused({ student: { checkpoint: other } }, /different tokenizer from the teacher/);
  });

  it('refuses a guidance scaffold, an explanation budget the student cannot hold, and a broken template', async () => {
    await refused({ guidance: { name: 'hints', options: {} } }, /guidance 'hints' cannot run in teach/);
    await refused({ reward: { name: 'format', options: {} } }, /teach's reward is RLT's/);
    await refused({ selfPlay: { every: 1 } }, /selfPlay cannot run in teach/);
    await refused(
      { rollout: { groupSize: 2, maxTokens: 110 } },
      /plus an explanation of up to rollout\.maxTokens 110 exceeds the student's context of 128; lower rollout\.maxTokens to \d+/,
    );
    await refused({ rlt: { template: { teacher: '{question}' } } }, /rlt\.template\.teacher: must hold/);
  });

  it('refuses a pool problem without a worked solution', async () => {
    const problem = { ...additionProblem('123', '45'), solution: '' };
    const file = join(dir, 'pool.jsonl');
    writeFileSync(file, `${JSON.stringify(problem)}\n${JSON.stringify(additionProblem('12', '34'))}\n`);
    await refused(
      { pool: { file }, tasks: [{ task: 'addition', difficulties: [2, 3] }] },
      /has no worked solution/,
    );
  });
});
