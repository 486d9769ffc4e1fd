import { spawnSync } from 'node:child_process';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { FixtureTask } from '../testing/core/worker-pool-worker.ts';
import {
  WorkerCrashError,
  WorkerPool,
  WorkerPoolClosedError,
  WorkerTaskError,
  WorkerTimeoutError,
} from './worker-pool.ts';

const workerUrl = new URL('../testing/core/worker-pool-worker.ts', import.meta.url);

describe('WorkerPool', () => {
  let pool: WorkerPool<FixtureTask, number> | undefined;
  // Worker start-up (tsx + module load) costs a second or more on a busy 2-core machine: tests that do
  // not need a fresh pool share this one.
  let shared: WorkerPool<FixtureTask, number>;
  beforeAll(() => {
    shared = new WorkerPool<FixtureTask, number>(workerUrl, { size: 2, timeoutMs: 5000 });
  });
  afterAll(() => shared.close());
  afterEach(async () => {
    await pool?.close();
    pool = undefined;
  });

  it('runs tasks in a TypeScript worker and returns their results', async () => {
    const results = await Promise.all([1, 2, 3, 4, 5].map((value) => shared.run({ kind: 'echo', value })));
    expect(results).toEqual([2, 4, 6, 8, 10]);
  });

  it('times out a hung task, replaces its worker, and keeps working', async () => {
    pool = new WorkerPool<FixtureTask, number>(workerUrl, { size: 1, timeoutMs: 5000 });
    await pool.run({ kind: 'echo', value: 0 }); // wait for the worker to load
    const started = Date.now();
    await expect(pool.run({ kind: 'spin', ms: 60_000 }, { timeoutMs: 200 })).rejects.toBeInstanceOf(
      WorkerTimeoutError,
    );
    expect(Date.now() - started).toBeLessThan(2000);
    expect(pool.replacements).toBe(1);
    expect(await pool.run({ kind: 'echo', value: 21 })).toBe(42);
  });

  it('fails only the timed-out task of a batch', async () => {
    const settled = await shared.runAll(
      [
        { kind: 'echo', value: 1 },
        { kind: 'spin', ms: 60_000 },
        { kind: 'echo', value: 2 },
        { kind: 'echo', value: 3 },
      ],
      { timeoutMs: 300 },
    );
    expect(settled.map((result) => result.status)).toEqual([
      'fulfilled',
      'rejected',
      'fulfilled',
      'fulfilled',
    ]);
    expect((settled[1] as PromiseRejectedResult).reason).toBeInstanceOf(WorkerTimeoutError);
  });

  it('pipelines tasks but times each from its own start, re-sending the ones queued behind a timeout', async () => {
    pool = new WorkerPool<FixtureTask, number>(workerUrl, { size: 1, timeoutMs: 600, pipeline: 4 });
    await pool.run({ kind: 'echo', value: 0 }); // wait for the worker to load
    const settled = await pool.runAll([
      { kind: 'spin', ms: 350 },
      { kind: 'spin', ms: 350 }, // ends 700 ms after dispatch, but only 350 ms after it starts: no timeout
      { kind: 'spin', ms: 60_000 },
      { kind: 'echo', value: 4 },
      { kind: 'echo', value: 5 },
    ]);
    expect(settled.map((result) => result.status)).toEqual([
      'fulfilled',
      'fulfilled',
      'rejected',
      'fulfilled',
      'fulfilled',
    ]);
    expect((settled[2] as PromiseRejectedResult).reason).toBeInstanceOf(WorkerTimeoutError);
    expect((settled[4] as PromiseFulfilledResult<number>).value).toBe(10);
    expect(pool.replacements).toBe(1);
  });

  it('reports handler errors and worker crashes, and recovers from both', async () => {
    await expect(shared.run({ kind: 'throw', message: 'bad input' })).rejects.toThrow(WorkerTaskError);
    await expect(shared.run({ kind: 'throw', message: 'bad input' })).rejects.toThrow('bad input');
    await expect(shared.run({ kind: 'exit' })).rejects.toBeInstanceOf(WorkerCrashError);
    expect(await shared.run({ kind: 'echo', value: 5 })).toBe(10);
  });

  it('does not keep a plain `node --import tsx` process alive once idle, even unclosed', () => {
    const moduleUrl = new URL('./worker-pool.ts', import.meta.url).href;
    const script = [
      `import { WorkerPool } from '${moduleUrl}';`,
      `const pool = new WorkerPool(new URL('${workerUrl.href}'), { size: 2, timeoutMs: 5000 });`,
      `console.log(await pool.run({ kind: 'echo', value: 21 }));`,
    ].join('\n');
    const result = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      encoding: 'utf8',
      timeout: 45_000,
    });
    expect(result.stderr).toBe('');
    expect(result.stdout.trim()).toBe('42');
    expect(result.status).toBe(0);
  });

  it('rejects queued work on close and refuses new work', async () => {
    pool = new WorkerPool<FixtureTask, number>(workerUrl, { size: 1, timeoutMs: 5000 });
    const running = pool.run({ kind: 'spin', ms: 60_000 }).catch((error: unknown) => error);
    const queued = pool.run({ kind: 'echo', value: 1 }).catch((error: unknown) => error);
    await pool.close();
    expect(await running).toBeInstanceOf(WorkerPoolClosedError);
    expect(await queued).toBeInstanceOf(WorkerPoolClosedError);
    await expect(pool.run({ kind: 'echo', value: 1 })).rejects.toBeInstanceOf(WorkerPoolClosedError);
  });
});
