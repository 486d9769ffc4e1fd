// `curricula train` with a JSONL pool (`pool.file`) and the config-time refusals of issue 12: a pool
// without difficulties under dump's default task × difficulty arms, a pool with inconsistent difficulty
// metadata (file:line), and a ladder level the cold start cannot fit. Each refusal is one line, exit 2,
// and leaves no run directory. One real run trains on the pool (demo-cold, workers 1, two small steps).
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Problem } from '../src/core/problem.ts';
import { RunStore } from '../src/runs/run-store.ts';
import { additionProblem } from '../src/tasks/addition.ts';
import { rlConfigSchema } from '../src/training/rl/config.ts';
import { train } from '../src/training/rl/train.ts';
import { repoRoot, runCli, tempDir, writeYaml } from './helpers.ts';

const demoCold = join(repoRoot, 'examples/checkpoints/demo-cold');

// Problems chosen by hand (2 and 3 digits): none is among the held-out problems drawn below.
const poolProblems: Problem[] = [
  additionProblem('47', '38'),
  additionProblem('91', '9'),
  additionProblem('563', '208'),
  additionProblem('730', '45'),
];

function writePool(dir: string, name: string, problems: Problem[], drop: string[] = []): string {
  const file = join(dir, name);
  const lines = problems.map((problem) => {
    const record: Record<string, unknown> = { ...problem };
    for (const field of drop) delete record[field];
    return JSON.stringify(record);
  });
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

function baseConfig(dir: string, name: string, extra: Record<string, unknown> = {}) {
  return {
    name,
    runsDir: dir,
    seed: 3,
    init: { checkpoint: demoCold },
    policy: { workers: 1 },
    tasks: [{ task: 'addition', difficulties: [2] }],
    rollout: { groupSize: 2, maxTokens: 40 },
    train: { steps: 2, batchSize: 2, learningRate: 0.0001 },
    eval: { every: 0, problemsPerDifficulty: 2, samples: 1 },
    ...extra,
  };
}

function expectOneLineError(result: { status: number | null; stderr: string }, pattern: RegExp): void {
  expect(result.stderr.trim().split('\n')).toHaveLength(1);
  expect(result.stderr).toMatch(pattern);
  expect(result.status).toBe(2);
}

describe('train on a JSONL pool', () => {
  it('trains on the problems of the file: every stored sample is one of them; solutions maxTokens cuts are advised', async () => {
    const dir = tempDir('pool-train');
    const pool = writePool(dir, 'pool.jsonl', poolProblems);
    // maxTokens 24: the 2-digit solutions (at most 23 tokens) fit, the two 3-digit ones (33) do not: advice.
    const config = rlConfigSchema.parse(
      baseConfig(dir, 'from-pool', { pool: { file: pool }, rollout: { groupSize: 2, maxTokens: 24 } }),
    );
    const advice: string[] = [];
    const result = await train(config, { onAdvice: (message) => advice.push(message) });
    expect(advice).toEqual([
      `${pool}: 2 of 4 problems have worked solutions longer than rollout.maxTokens (24), first on line 3; their completions are cut before the answer line and cannot be right`,
    ]);
    expect(result.steps).toBe(2);
    const store = RunStore.read(result.runDir);
    const ids = new Set(poolProblems.map((problem) => problem.id));
    const sampled = [...store.samples(1), ...store.samples(2)];
    store.close();
    expect(sampled.length).toBeGreaterThan(0);
    for (const sample of sampled) expect(ids.has(sample.problemId)).toBe(true);
  }, 120_000);

  it('a resume re-reads the pool file and refuses one that changed since the run started', async () => {
    const dir = tempDir('pool-resume');
    const pool = writePool(dir, 'pool.jsonl', poolProblems);
    const config = rlConfigSchema.parse(
      baseConfig(dir, 'resumable', { pool: { file: pool }, checkpoint: { latestEvery: 1 } }),
    );
    const first = await train(config, { stopAfter: 1 });
    writePool(dir, 'pool.jsonl', poolProblems.slice(0, 3));
    await expect(train(null, { resume: first.runDir })).rejects.toThrow(
      new RegExp(
        `^pool\\.file: ${pool} changed since the run started \\(sha256 [0-9a-f]{12}… then, [0-9a-f]{12}… now\\)`,
      ),
    );
    writePool(dir, 'pool.jsonl', poolProblems);
    expect((await train(null, { resume: first.runDir })).steps).toBe(2);
  }, 120_000);

  it("a pool without difficulties: dump's default arms are refused naming arms: task; arms: task trains", async () => {
    const dir = tempDir('pool-dump');
    const pool = writePool(dir, 'levels-free.jsonl', poolProblems, ['difficulty']);
    const refused = rlConfigSchema.parse(
      baseConfig(dir, 'dump-default', { pool: { file: pool }, selector: { name: 'dump' } }),
    );
    await expect(train(refused)).rejects.toThrow(
      new RegExp(
        `^pool ${pool}: selector 'dump' needs 'difficulty' on every problem; problem '${poolProblems[0].id}' has none\\. .*selector\\.options\\.arms to 'task'`,
      ),
    );
    expect(existsSync(join(dir, 'dump-default'))).toBe(false);
    const byTask = rlConfigSchema.parse(
      baseConfig(dir, 'dump-task', {
        pool: { file: pool },
        selector: { name: 'dump', options: { arms: 'task' } },
        train: { steps: 1, batchSize: 2, learningRate: 0.0001 },
      }),
    );
    expect((await train(byTask)).steps).toBe(1);
  }, 120_000);

  it('the CLI refuses a pool with inconsistent difficulty metadata with file:line, before any run exists', () => {
    const dir = tempDir('pool-inconsistent');
    const pool = join(dir, 'pool.jsonl');
    writeFileSync(
      pool,
      [
        JSON.stringify(poolProblems[0]),
        JSON.stringify(poolProblems[2]),
        JSON.stringify({ ...poolProblems[1], difficulty: 4 }),
      ].join('\n'),
    );
    const config = writeYaml(dir, 'train.yaml', baseConfig(dir, 'bad-pool', { pool: { file: pool } }));
    expectOneLineError(
      runCli(['train', '--config', config, '--quiet']),
      new RegExp(`${pool} line 3: inconsistent difficulty: id '${poolProblems[1].id}' says difficulty 2`),
    );
    expect(existsSync(join(dir, 'bad-pool'))).toBe(false);
  }, 60_000);

  it('the CLI refuses a ladder level the cold start cannot fit, naming the level, before any run exists', () => {
    const dir = tempDir('ladder-nofit');
    const config = writeYaml(
      dir,
      'train.yaml',
      baseConfig(dir, 'too-long', {
        tasks: [
          { task: 'addition', difficulties: [1, 2, 3, 4] },
          { task: 'addition', difficulties: [8, 12] },
        ],
        rollout: { groupSize: 2, maxTokens: 96 },
      }),
    );
    expectOneLineError(
      runCli(['train', '--config', config, '--quiet']),
      /^error: tasks\.1: addition difficulty 12: sequences need up to 151 tokens .*context of the cold start .*demo-cold \(128\)/,
    );
    expect(existsSync(join(dir, 'too-long'))).toBe(false);
  }, 60_000);
});
