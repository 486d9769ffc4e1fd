// Issue 26, items 4 and 5. The dashboard reads only files whose real path lies inside the runs directory
// (a symlinked config.json, metrics.jsonl or run.sqlite, a symlinked run directory: 403, and no byte of the
// target in any answer), and never quotes a file's content in an error. Bad sizes and paths on the
// command line are one line naming the limit, exit 2, before anything heavy: batchSize, batchSize ×
// groupSize × maxTokens, a step's KV cache and a fresh model against memory, poolSize, eval --workers /
// --problems, a 20 MB run name, a runs directory that is a file, demo --steps 0; a YAML config with a
// byte-order mark is read. A run whose LATEST is deleted resumes from its newest intact checkpoint and
// says so.
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { main } from '../src/cli/main.ts';
import { buildDashboard } from '../src/dashboard/server.ts';
import { RunStore } from '../src/runs/run-store.ts';
import { additionProblem } from '../src/tasks/addition.ts';
import { writeRun } from '../src/testing/dashboard/test-runs.ts';
import { readPoolFile } from '../src/training/rl/pool-file.ts';
import { repoRoot, runCli, tempDir, writeYaml } from './helpers.ts';

const demoCold = join(repoRoot, 'examples/checkpoints/demo-cold');
const SECRET = 'root:SECRET-7f3a9c:19000:0:99999:7:::';

function expectOneLineError(result: { status: number | null; stderr: string }, pattern: RegExp): void {
  const lines = result.stderr.trim().split('\n');
  expect(lines, result.stderr.slice(0, 2000)).toHaveLength(1);
  expect(lines[0].length).toBeLessThan(400);
  expect(result.stderr).toMatch(pattern);
  expect(result.status).toBe(2);
}

/**
 * `curricula <args>` in this process (main() as bin/ runs it): what it printed on stderr and the exit code
 * it set. Far faster than a child process per case; one case below runs the real CLI too.
 */
async function cli(args: string[]): Promise<{ status: number | null; stderr: string }> {
  const lines: string[] = [];
  const error = vi.spyOn(console, 'error').mockImplementation((...parts: unknown[]) => {
    lines.push(parts.join(' '));
  });
  const log = vi.spyOn(console, 'log').mockImplementation(() => {});
  const before = process.exitCode;
  process.exitCode = undefined;
  try {
    await main(['node', 'curricula', ...args]);
    return { status: Number(process.exitCode ?? 0), stderr: lines.map((line) => `${line}\n`).join('') };
  } finally {
    process.exitCode = before;
    error.mockRestore();
    log.mockRestore();
  }
}

describe('dashboard: every file it opens lies inside the runs directory', () => {
  let app: FastifyInstance;
  let runsDir: string;
  let outside: string;

  beforeAll(async () => {
    const root = tempDir('dash-links');
    runsDir = join(root, 'runs');
    outside = join(root, 'outside');
    mkdirSync(runsDir);
    mkdirSync(outside);
    writeFileSync(join(outside, 'shadow'), `${SECRET}\n`);
    writeFileSync(join(outside, 'secret.json'), JSON.stringify({ secret: SECRET }));
    writeFileSync(join(outside, 'metrics.jsonl'), `${JSON.stringify({ step: 1, time: SECRET })}\n`);
    const other = writeRun(join(outside, 'other'), 'uniform', 1, 0.5);
    other.close();
    const finished = (name: string) => {
      const store = writeRun(join(runsDir, name), 'uniform', 1, 0.5);
      store.event('finished', { step: 4 });
      store.close();
      return join(runsDir, name);
    };
    finished('plain');
    // config.json → a secret file outside (not JSON: the old message quoted its first characters) …
    rmSync(join(finished('config-shadow'), 'config.json'));
    symlinkSync(join(outside, 'shadow'), join(runsDir, 'config-shadow', 'config.json'));
    // … and → a JSON file outside (served as the run's config before).
    rmSync(join(finished('config-json'), 'config.json'));
    symlinkSync(join(outside, 'secret.json'), join(runsDir, 'config-json', 'config.json'));
    // The metrics and samples files: metrics.jsonl and run.sqlite linked to files outside.
    rmSync(join(finished('metrics-link'), 'metrics.jsonl'));
    symlinkSync(join(outside, 'metrics.jsonl'), join(runsDir, 'metrics-link', 'metrics.jsonl'));
    rmSync(join(finished('samples-link'), 'run.sqlite'));
    symlinkSync(join(outside, 'other', 'run.sqlite'), join(runsDir, 'samples-link', 'run.sqlite'));
    // A link at a deeper level: config.json → a link inside the runs directory → the secret.
    symlinkSync(join(outside, 'shadow'), join(runsDir, '.hop'));
    rmSync(join(finished('two-hops'), 'config.json'));
    symlinkSync(join(runsDir, '.hop'), join(runsDir, 'two-hops', 'config.json'));
    // The run directory itself a link to a run outside.
    symlinkSync(join(outside, 'other'), join(runsDir, 'dir-link'));
    // A config.json inside the runs directory that is not JSON: the error names the file, not its text.
    writeFileSync(join(finished('garbled'), 'config.json'), `${SECRET}\n`);
    app = await buildDashboard({ runsDir });
  });
  afterAll(async () => {
    await app?.close();
  });

  const get = async (url: string) => {
    const response = await app.inject({ method: 'GET', url });
    return { status: response.statusCode, body: response.body };
  };

  it.each([
    ['config.json → a secret file', 'config-shadow'],
    ['config.json → a JSON file', 'config-json'],
    ['metrics.jsonl → a file', 'metrics-link'],
    ['run.sqlite → another run’s store (its samples)', 'samples-link'],
    ['config.json → a link → a secret file', 'two-hops'],
    ['the run directory → a run', 'dir-link'],
  ])('%s outside: 403 on every route, nothing of the target in the answer', async (_label, name) => {
    for (const route of ['config', 'keys', 'series?keys=reward/mean', 'samples?step=4', 'histogram?step=4']) {
      const response = await get(`/api/runs/${name}/${route}`);
      expect(response.status, `${route}: ${response.body}`).toBe(403);
      expect(JSON.parse(response.body).error.message).toMatch(/outside the runs directory; refused/);
      expect(response.body).not.toMatch(/root:|SECRE/);
      expect(response.body).not.toContain(outside);
    }
    const compare = await get(`/api/compare?runs=plain,${name}`);
    expect(compare.status).toBe(403);
    expect(compare.body).not.toMatch(/root:|SECRE/);
    const diff = await get(`/api/runs/plain/config?diff=${name}`);
    expect(diff.status).toBe(403);
    expect(diff.body).not.toMatch(/root:|SECRE/);
  });

  it('lists such runs as unreadable with the reason, and no content; a plain run still reads', async () => {
    const list = await get('/api/runs');
    expect(list.status).toBe(200);
    expect(list.body).not.toMatch(/root:|SECRE/);
    expect(list.body).not.toContain(outside);
    const rows = JSON.parse(list.body).runs as { name: string; status: string; reason?: string }[];
    for (const name of [
      'config-shadow',
      'config-json',
      'metrics-link',
      'samples-link',
      'two-hops',
      'dir-link',
    ]) {
      const row = rows.find((entry) => entry.name === name);
      expect(row?.status, name).toBe('unreadable');
      expect(row?.reason).toMatch(/outside the runs directory/);
    }
    expect(rows.find((entry) => entry.name === 'plain')?.status).toBe('finished');
    expect((await get('/api/runs/plain/config')).status).toBe(200);
  });

  it('a config.json that is not JSON is a 400 naming the file, without quoting its text', async () => {
    const response = await get('/api/runs/garbled/config');
    expect(response.status).toBe(400);
    expect(JSON.parse(response.body).error.message).toMatch(/config\.json cannot be read: not valid JSON/);
    expect(response.body).not.toMatch(/root:|SECRE/);
  });
});

describe('bad sizes and paths: one line naming the limit, exit 2, nothing started', () => {
  const dir = tempDir('bad-inputs-3');
  const config = (name: string, extra: Record<string, unknown> = {}) =>
    writeYaml(dir, `${name}.yaml`, {
      name,
      runsDir: join(dir, 'runs'),
      init: { checkpoint: demoCold },
      policy: { workers: 1 },
      tasks: [{ task: 'addition', difficulties: [1] }],
      train: { steps: 2, batchSize: 2, learningRate: 0.001 },
      ...extra,
    });
  const train = (path: string) => cli(['train', '--config', path, '--quiet']);

  it('train.batchSize 1000000000', async () => {
    const path = config('huge-batch', { train: { steps: 2, batchSize: 1_000_000_000, learningRate: 0.001 } });
    const named = /train\.batchSize: must be at most 4,096 \(problems per step held in memory\)/;
    expectOneLineError(await train(path), named);
    // The same through the real command (a child process): one line on stderr, exit code 2.
    expectOneLineError(runCli(['train', '--config', path, '--quiet'], { timeoutMs: 30_000 }), named);
  });

  it('batchSize × groupSize × maxTokens over the per-step token budget', async () => {
    const path = config('huge-step', {
      train: { steps: 2, batchSize: 1024, learningRate: 0.001 },
      rollout: { groupSize: 64, maxTokens: 1024 },
    });
    expectOneLineError(
      await train(path),
      /train\.batchSize × rollout\.groupSize × rollout\.maxTokens = 1024 × 64 × 1024 = 67,108,864 tokens per step, over the budget of 16,777,216/,
    );
  });

  const fresh = (name: string, model: Record<string, unknown>, train: Record<string, unknown>) =>
    writeYaml(dir, `${name}.yaml`, {
      name,
      runsDir: join(dir, 'runs'),
      model: { preset: 'tiny', ...model },
      policy: { workers: 1 },
      tasks: [{ task: 'addition', difficulties: [1] }],
      train: { steps: 2, learningRate: 0.001, ...train },
      rollout: { groupSize: 16 },
    });

  it('a step whose KV cache (embedded policy) would not fit in memory', async () => {
    // 64 × 16 completions of a model with 64 layers, dModel 64 and a 65,536-token context: 2 GiB each.
    const path = fresh(
      'huge-cache',
      { dModel: 64, heads: 4, layers: 64, contextLength: 65_536 },
      { batchSize: 64 },
    );
    expectOneLineError(
      await train(path),
      /train\.batchSize × rollout\.groupSize: sampling 1,024 completions at once needs a KV cache of 2048\.0 GiB \(64 layers × 2 × context 65536 × dModel 64 × 4 bytes each\), over the budget of [\d.]+ GiB \(half of this machine's/,
    );
  });

  it('a fresh model that would not fit in memory', async () => {
    const path = fresh('huge-model', { dModel: 8192, heads: 8, layers: 64 }, { batchSize: 2 });
    expectOneLineError(
      await train(path),
      /model: a model of 64 layers × dModel 8192 has about 51\.5 billion parameters, 768\.0 GiB with gradients and optimizer state, over the budget of/,
    );
  });

  it('poolSize 1e12', async () => {
    expectOneLineError(
      await train(config('huge-pool', { poolSize: 1e12 })),
      /poolSize: must be at most 100,000/,
    );
  });

  it('eval --workers 10000 and --problems 1000000000', async () => {
    const base = ['eval', '--checkpoint', demoCold, '--tasks', 'addition:1', '--quiet'];
    expectOneLineError(
      await cli([...base, '--workers', '10000']),
      /--workers must be at most 64 \(each worker holds a replica of the model\), got 10000/,
    );
    expectOneLineError(
      await cli([...base, '--problems', '1000000000']),
      /--problems must be at most 10,000 \(held-out problems per task and difficulty/,
    );
  });

  it('a 20 MB run name: a short line', async () => {
    const path = join(dir, 'long-name.yaml');
    writeFileSync(
      path,
      readFileSync(config('long-name'), 'utf8').replace('name: long-name', `name: ${'a'.repeat(20_000_000)}`),
    );
    expectOneLineError(
      await train(path),
      /name: use letters, digits, dot, dash or underscore, .*at most 128 characters/,
    );
    const argument = await cli([
      'train',
      '--config',
      config('long-arg'),
      '--name',
      `${'b'.repeat(100_000)}`,
      '--quiet',
    ]);
    expectOneLineError(argument, /at most 128 characters/);
  });

  it('a runs directory that is a file', async () => {
    const file = join(dir, 'runs-file');
    writeFileSync(file, 'not a directory');
    const path = config('in-file', { runsDir: file });
    expectOneLineError(
      await train(path),
      /the runs directory .*runs-file" cannot be used: it is a file, not a directory/,
    );
    expect(readFileSync(file, 'utf8')).toBe('not a directory');
    expectOneLineError(
      await cli(['dashboard', '--runs-dir', file, '--port', '0']),
      /runs directory .*runs-file is a file, not a directory; give --runs-dir a directory/,
    );
  });

  it('a YAML config with UTF-8 byte-order marks is read (the marks dropped), and so is a pool file', async () => {
    // Saved with a BOM twice: the YAML parser drops one, the other made the first key '\uFEFFname' before.
    // poolSize 1e12 so that the run stops at validation: the error is about it, not about that key.
    const path = join(dir, 'bom.yaml');
    writeFileSync(path, `\uFEFF\uFEFF${readFileSync(config('bom', { poolSize: 1e12 }), 'utf8')}`);
    const result = await train(path);
    expectOneLineError(result, /poolSize: must be at most 100,000/);
    expect(result.stderr).not.toMatch(/unknown key/);
    const pool = join(dir, 'bom-pool.jsonl');
    writeFileSync(pool, `\uFEFF${JSON.stringify(additionProblem('47', '38'))}\n`);
    expect(readPoolFile(pool).map((entry) => entry.problem.id)).toEqual([additionProblem('47', '38').id]);
  });

  it('demo --steps 0 names the option, not the example config', async () => {
    const result = await cli(['demo', '--steps', '0', '--runs-dir', join(dir, 'demo-runs'), '--quiet']);
    expectOneLineError(result, /--steps must be a positive integer, got '0'/);
    expect(result.stderr).not.toMatch(/demo-train\.yaml/);
    expect(existsSync(join(dir, 'demo-runs'))).toBe(false);
  });
});

describe('a deleted LATEST', () => {
  it('resumes from the newest intact checkpoint, with a line saying so', () => {
    const dir = tempDir('latest-gone');
    const path = writeYaml(dir, 'tiny.yaml', {
      name: 'tiny',
      runsDir: dir,
      seed: 2,
      init: { checkpoint: demoCold },
      policy: { workers: 1 },
      tasks: [{ task: 'addition', difficulties: [1] }],
      rollout: { groupSize: 2, maxTokens: 16 },
      train: { steps: 2, batchSize: 2, learningRate: 0.0001 },
      eval: { every: 0, problemsPerDifficulty: 1, samples: 1 },
      checkpoint: { latestEvery: 1 },
      log: { samplesPerStep: 2 },
    });
    const first = runCli(['train', '--config', path, '--no-report', '--quiet']);
    expect(first.status, first.stderr).toBe(0);
    const run = join(dir, 'tiny');
    const checkpoints = join(run, 'checkpoints');
    expect(readdirSync(checkpoints)).toEqual(expect.arrayContaining(['step-000001', 'step-000002']));
    expect(readFileSync(join(checkpoints, 'LATEST'), 'utf8').trim()).toBe('step-000002');
    rmSync(join(checkpoints, 'LATEST'));

    const resumed = runCli(['train', '--resume', run, '--steps', '3', '--no-report', '--quiet']);
    expect(resumed.status, resumed.stderr).toBe(0);
    expect(resumed.stderr.trim()).toBe(
      `warning: ${join(checkpoints, 'LATEST')} is missing: resuming from the newest intact checkpoint, step-000002 (step 2)`,
    );
    const store = RunStore.read(run);
    try {
      const events = store.events();
      expect(events.find((event) => event.kind === 'resumed')?.detail).toMatchObject({
        step: 2,
        replayed: [],
      });
      expect(events.find((event) => event.kind === 'checkpoint-fallback')?.detail).toMatchObject({
        checkpoint: 'step-000002',
      });
      expect(store.series('reward/mean').map((row) => row.step)).toEqual([1, 2, 3]);
    } finally {
      store.close();
    }
    expect(readFileSync(join(checkpoints, 'LATEST'), 'utf8').trim()).toBe('step-000003');
  }, 85_000);
});
