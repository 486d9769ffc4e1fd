// The sweep's plan, queue and scheduler with a stand-in for `curricula train` that writes real run
// directories (RunStore): order and names, the concurrency limit, failures, and a restart that skips
// finished runs, resumes interrupted ones and refuses another sweep in the same directory.
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RunStore } from '../../runs/run-store.ts';
import { runSweep, type StartTrain } from './run-sweep.ts';
import { parseGridAxis, sweepRuns } from './sweep-plan.ts';
import { lockSweep, openQueue, queueFile, saveQueue } from './sweep-queue.ts';

const grid = [parseGridAxis('selector.name=uniform,sec'), parseGridAxis('rollout.groupSize=4,8')];
const request = (config = '/x/train.yaml') => ({
  config,
  grid,
  seeds: [1, 2],
  prefix: '',
  sets: ['train.steps=2'],
});

/** A stand-in trainer: records its calls; `fail` names runs that exit 1; others finish their run dir. */
function fakeTrainer(out: string, fail: readonly string[] = []) {
  const calls: string[][] = [];
  let running = 0;
  let most = 0;
  const start: StartTrain = (args) => {
    calls.push(args);
    running++;
    most = Math.max(most, running);
    const name = args[0] === '--resume' ? args[1].split('/').pop()! : args[args.indexOf('--name') + 1];
    const done = new Promise<number | null>((resolve) =>
      setTimeout(() => {
        running--;
        if (fail.includes(name)) return resolve(1);
        const dir = join(out, name);
        const store = existsSync(dir) ? RunStore.resume(dir) : RunStore.create(dir, { name });
        store.event('finished', { step: 2 });
        store.close();
        resolve(0);
      }, 20),
    );
    return { done, stop: () => undefined };
  };
  return { start, calls, most: () => most };
}

describe('sweep', () => {
  it('every grid point × seed, axes outer to inner, named by their values', () => {
    const runs = sweepRuns(grid, [1, 2]);
    expect(runs.map((run) => run.name)).toEqual([
      'uniform-4-s1',
      'uniform-4-s2',
      'uniform-8-s1',
      'uniform-8-s2',
      'sec-4-s1',
      'sec-4-s2',
      'sec-8-s1',
      'sec-8-s2',
    ]);
    expect(runs[5].sets).toEqual(['selector.name=sec', 'rollout.groupSize=4']);
    expect(sweepRuns([], [3], 'base').map((run) => run.name)).toEqual(['base-s3']);
    expect(() => parseGridAxis('selector.name')).toThrow(/key=value1,value2/);
    expect(() => parseGridAxis('seed=1,2')).toThrow(/use --seeds/);
    expect(() => sweepRuns([parseGridAxis('a=x y,x-y')], [1])).toThrow(/two runs would be named 'x-y-s1'/);
  });

  it('runs at most `concurrency` trainers at a time, records failures, saves the queue', async () => {
    const out = mkdtempSync(join(tmpdir(), 'sweep-'));
    const trainer = fakeTrainer(out, ['sec-8-s2']);
    const queue = openQueue(out, request(), sweepRuns(grid, [1, 2]), false);
    await runSweep({ out, queue, concurrency: 3, workers: 1, start: trainer.start });
    expect(trainer.calls).toHaveLength(8);
    expect(trainer.most()).toBe(3);
    expect(trainer.calls[0]).toEqual([
      '--config',
      '/x/train.yaml',
      '--name',
      'uniform-4-s1',
      '--seed',
      '1',
      '--workers',
      '1',
      '--set',
      `runsDir=${out}`,
      '--set',
      'train.steps=2',
      '--set',
      'selector.name=uniform',
      '--set',
      'rollout.groupSize=4',
      '--quiet',
      '--no-report',
    ]);
    const saved = JSON.parse(readFileSync(queueFile(out), 'utf8'));
    expect(saved.runs.filter((entry: { status: string }) => entry.status === 'finished')).toHaveLength(7);
    expect(saved.runs.find((entry: { name: string }) => entry.name === 'sec-8-s2')).toMatchObject({
      status: 'failed',
      exitCode: 1,
      attempts: 1,
    });
  });

  it('a restart skips finished runs, resumes interrupted ones, and leaves failed ones unless asked', async () => {
    const out = mkdtempSync(join(tmpdir(), 'sweep-'));
    const runs = sweepRuns(grid, [1, 2]);
    const first = openQueue(out, request(), runs, false);
    // As a killed sweep leaves it: two runs finished, one running (its directory exists, unfinished),
    // one failed, the rest pending.
    for (const name of ['uniform-4-s1', 'uniform-4-s2']) {
      const store = RunStore.create(join(out, name), { name });
      store.event('finished', { step: 2 });
      store.close();
    }
    RunStore.create(join(out, 'uniform-8-s1'), { name: 'uniform-8-s1' }).close();
    first.runs[0].status = 'finished';
    first.runs[1].status = 'pending'; // finished on disk, not yet in the queue: the directory decides
    first.runs[2].status = 'running';
    first.runs[3].status = 'failed';
    saveQueue(out, first);
    const trainer = fakeTrainer(out);
    const queue = openQueue(out, request(), runs, false);
    await runSweep({ out, queue, concurrency: 2, workers: 1, start: trainer.start });
    const names = trainer.calls.map((args) => (args[0] === '--resume' ? `resume ${args[1]}` : args[3]));
    expect(names).toEqual([
      `resume ${join(out, 'uniform-8-s1')}`,
      'sec-4-s1',
      'sec-4-s2',
      'sec-8-s1',
      'sec-8-s2',
    ]);
    expect(queue.runs.map((entry) => entry.status)).toEqual([
      'finished',
      'finished',
      'finished',
      'failed',
      'finished',
      'finished',
      'finished',
      'finished',
    ]);
    const retried = fakeTrainer(out);
    await runSweep({
      out,
      queue: openQueue(out, request(), runs, true),
      concurrency: 2,
      workers: 1,
      start: retried.start,
    });
    expect(retried.calls.map((args) => args[3])).toEqual(['uniform-8-s2']);
  });

  it('refuses another sweep in the same directory, a damaged queue, and a second live sweep', () => {
    const out = mkdtempSync(join(tmpdir(), 'sweep-'));
    saveQueue(out, openQueue(out, request(), sweepRuns(grid, [1, 2]), false));
    expect(() => openQueue(out, request('/y/other.yaml'), sweepRuns(grid, [1, 2]), false)).toThrow(
      /holds another sweep/,
    );
    writeFileSync(queueFile(out), '{ not json');
    expect(() => openQueue(out, request(), [], false)).toThrow(/is not a sweep queue/);
    const release = lockSweep(out);
    expect(() => lockSweep(out)).toThrow(new RegExp(`another sweep \\(pid ${process.pid}\\) is running`));
    release();
    writeFileSync(join(out, 'sweep.lock'), '999999999\n'); // a lock whose process is gone
    lockSweep(out)();
  });
});
