import { execFileSync } from 'node:child_process';
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, UserError } from '../core/errors.ts';
import { readCheckpoint, saveCheckpoint } from './checkpoints.ts';
import { LOCK_OWNER_FILE, RunLockedError } from './lock.ts';
import { runDirectory } from './run-name.ts';
import { RunStore, readJsonlLines } from './run-store.ts';

function freshDir(): string {
  return join(mkdtempSync(join(tmpdir(), 'runs-')), 'run');
}

describe('RunStore', () => {
  it('logs metrics to SQLite and JSONL and truncates steps after a checkpoint', () => {
    const dir = freshDir();
    const store = RunStore.create(dir, { seed: 1 });
    for (let step = 1; step <= 5; step++)
      store.logMetrics(step, { 'reward/mean': step / 10, 'losses/policy': -step });
    store.logSamples(3, [{ problemId: 'p1', prompt: 'a', completion: 'b', reward: 1 }]);
    store.logRewardErrors(3, { 'reward error: x': 2 });
    store.logRewardErrors(4, { 'reward error: x': 1, 'reward was NaN': 5 });
    expect(store.series('reward/mean').map((row) => row.value)).toEqual([0.1, 0.2, 0.3, 0.4, 0.5]);
    expect(store.truncateAfter(3)).toEqual([4, 5]);
    expect(store.lastStep()).toBe(3);
    expect(store.samples(3)).toHaveLength(1);
    expect(store.rewardErrors()).toEqual([{ step: 3, reason: 'reward error: x', count: 2 }]);
    expect(
      readJsonlLines(join(dir, 'metrics.jsonl')).map((entry) => (entry as { step: number }).step),
    ).toEqual([1, 2, 3]);
    expect(store.config()).toEqual({ seed: 1 });
    expect(store.events().map((event) => [event.kind, event.detail])).toEqual([
      ['created', {}],
      ['truncated', { after: 3, droppedSteps: [4, 5] }],
    ]);
    store.close();
  });

  it('refuses to create over an existing run and to open a run twice for writing', () => {
    const dir = freshDir();
    const store = RunStore.create(dir, {});
    expect(() => RunStore.create(dir, {})).toThrow(/already exists/);
    expect(() => RunStore.resume(dir)).toThrow(RunLockedError);
    // A different process is refused too, with the owner's pid in the message.
    const script = `import('${join(process.cwd(), 'src/runs/run-store.ts')}').then(m => { try { m.RunStore.resume('${dir}'); console.log('opened'); } catch (e) { console.log(e.message); } })`;
    const output = execFileSync('node', ['--import', 'tsx', '-e', script], { encoding: 'utf8' });
    expect(output).toContain(`in use by process ${process.pid}`);
    store.close();
    const again = RunStore.resume(dir);
    again.close();
  });

  it('takes over a stale lock and drops a torn JSONL line on resume', () => {
    const dir = freshDir();
    const store = RunStore.create(dir, {});
    store.logMetrics(1, { x: 1 });
    store.close();
    // What a holder killed with SIGKILL leaves: its owner file (the OS lock itself died with it).
    writeFileSync(join(dir, LOCK_OWNER_FILE), JSON.stringify({ pid: 999999, host: 'x', since: 'then' }));
    appendFileSync(join(dir, 'metrics.jsonl'), '{"step":2,"x":');
    const resumed = RunStore.resume(dir);
    expect(JSON.parse(readFileSync(join(dir, LOCK_OWNER_FILE), 'utf8')).pid).toBe(process.pid);
    expect(readFileSync(join(dir, 'metrics.jsonl'), 'utf8').trim().split('\n')).toHaveLength(1);
    resumed.close();
    expect(existsSync(join(dir, LOCK_OWNER_FILE))).toBe(false);
  });

  it('refuses run names that are not a directory inside the runs directory', () => {
    const root = mkdtempSync(join(tmpdir(), 'names-'));
    const runs = join(root, 'runs');
    RunStore.create(join(runs, 'other'), { keep: true }).close();
    writeFileSync(join(root, 'precious.txt'), 'mine');
    for (const name of ['.', '..', '.hidden', '', 'a/b', '../x', 'a\\b', ' x']) {
      expect(() => runDirectory(runs, name), name).toThrow(ConfigError);
    }
    for (const dir of [`${runs}/.`, `${runs}/..`, `${runs}/./`, `${runs}/../`, `${runs}/other/..`]) {
      expect(() => RunStore.create(dir, {}, { overwrite: true }), dir).toThrow(/run name .* is not allowed/);
    }
    expect(runDirectory(runs, 'a.b-c_1')).toBe(join(resolve(runs), 'a.b-c_1'));
    expect(readFileSync(join(root, 'precious.txt'), 'utf8')).toBe('mine');
    expect(RunStore.read(join(runs, 'other')).config()).toEqual({ keep: true });
  });

  it('overwrites only a run that is not in use, and says what it removes', () => {
    const runs = mkdtempSync(join(tmpdir(), 'overwrite-'));
    const notRun = join(runs, 'notes');
    mkdirSync(notRun);
    writeFileSync(join(notRun, 'todo.txt'), 'mine');
    expect(() => RunStore.create(notRun, {}, { overwrite: true })).toThrow(/is not a Curricula run/);
    expect(readFileSync(join(notRun, 'todo.txt'), 'utf8')).toBe('mine');

    const dir = join(runs, 'run');
    const first = RunStore.create(dir, { version: 1 });
    first.logMetrics(3, { x: 1 });
    expect(() => RunStore.create(dir, {}, { overwrite: true })).toThrow(RunLockedError);
    first.close();
    const messages: string[] = [];
    const second = RunStore.create(
      dir,
      { version: 2 },
      { overwrite: true, onOverwrite: (m) => messages.push(m) },
    );
    expect(second.config()).toEqual({ version: 2 });
    second.close();
    expect(messages).toHaveLength(1);
    expect(messages[0]).toMatch(
      /^overwriting run .*run \(created .*, last logged step 3, 0 checkpoints\): removing it$/,
    );
    expect(readdirSync(runs).sort()).toEqual(['notes', 'run']); // nothing left aside

    const cwd = process.cwd();
    process.chdir(join(dir, 'checkpoints'));
    try {
      expect(() => RunStore.create(dir, {}, { overwrite: true })).toThrow(/working directory is inside it/);
    } finally {
      process.chdir(cwd);
    }
    expect(RunStore.read(dir).config()).toEqual({ version: 2 });
  });

  it('removes what a killed create or overwrite of the same name left, and only that', () => {
    const root = freshDir();
    const deadPid = 2 ** 22 + 12345; // above Linux's pid_max: never a running process
    const leftovers = {
      staging: `new.creating-${deadPid}`,
      removing: `.new.removing-${deadPid}-1700000000000`,
    };
    const kept = [
      `new.creating-${process.ppid}`, // a live create
      `.new.removing-${process.ppid}-1700000000000`, // a live overwrite
      `other.creating-${deadPid}`, // another name's
      `new.creating-${deadPid}-x`, // not a staging name
    ];
    for (const entry of [...Object.values(leftovers), ...kept]) {
      mkdirSync(join(root, entry, 'checkpoints'), { recursive: true });
      writeFileSync(join(root, entry, 'config.json'), '{}');
    }
    // A user's run that happens to carry a staging-like name of a dead pid: it has run.sqlite.
    const lookalike = `new.creating-${deadPid + 1}`;
    RunStore.create(join(root, lookalike), {}).close();
    RunStore.create(join(root, 'new'), {}).close();
    expect(readdirSync(root).sort()).toEqual([...kept, lookalike, 'new'].sort());
  });

  it('rejects a directory that is not a run', () => {
    expect(() => RunStore.resume(mkdtempSync(join(tmpdir(), 'x-')))).toThrow(UserError);
  });
});

describe('checkpoints', () => {
  it('saves atomically, points LATEST/BEST and prunes old ones', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ckpt-'));
    const saveModel = async (path: string) => {
      const { mkdirSync } = await import('node:fs');
      mkdirSync(path);
      writeFileSync(join(path, 'weights'), 'w');
    };
    for (let step = 1; step <= 4; step++) {
      await saveCheckpoint(dir, { step, rng: [1, 2, 3, step] }, saveModel, {
        best: step === 2,
        keep: step === 1,
      });
    }
    const latest = readCheckpoint(dir)!;
    expect(latest.state.step).toBe(4);
    expect(readCheckpoint(dir, 'BEST')!.state.step).toBe(2);
    expect(existsSync(join(dir, 'step-000001'))).toBe(true); // kept
    expect(existsSync(join(dir, 'step-000003'))).toBe(true); // recent
    expect(readFileSync(join(latest.modelPath, 'weights'), 'utf8')).toBe('w');
  });

  it('prunes temporaries of dead writers (a kill during a LATEST write), and only those', async () => {
    const root = mkdtempSync(join(tmpdir(), 'ckpt-tmp-'));
    const dir = join(root, 'checkpoints');
    mkdirSync(dir);
    const deadPid = 2 ** 22 + 12345; // above Linux's pid_max: never a running process
    const dead = `.${deadPid}.1700000000000.tmp`;
    const live = `.${process.ppid}.1700000000000.tmp`; // the parent of this test process is alive
    for (const name of [dead, live, '.notes.tmp']) writeFileSync(join(dir, name), 'step-000001');
    writeFileSync(join(root, dead), 'outside the checkpoints directory');
    await saveCheckpoint(dir, { step: 1, rng: [1, 2, 3, 4] }, async (path) => mkdirSync(path));
    expect(readdirSync(dir).sort()).toEqual([live, '.notes.tmp', 'LATEST', 'step-000001'].sort());
    expect(existsSync(join(root, dead))).toBe(true);
  });

  it('a failed save leaves the previous checkpoint in place', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ckpt-'));
    const ok = async (path: string) => {
      const { mkdirSync } = await import('node:fs');
      mkdirSync(path);
    };
    await saveCheckpoint(dir, { step: 1, rng: [1, 2, 3, 4] }, ok);
    await expect(
      saveCheckpoint(dir, { step: 2, rng: [1, 2, 3, 4] }, async () => {
        throw new Error('disk full');
      }),
    ).rejects.toThrow('disk full');
    expect(readCheckpoint(dir)!.state.step).toBe(1);
  });
});
