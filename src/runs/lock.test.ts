// The run lock under contention, between real processes: 20 child processes (src/testing/runs/lock-child.ts) wait on
// a barrier file and then all open the same run for writing with RunStore.resume, the product's path.
// Each trial must end with exactly one holder and every other process refused with RunLockedError, both
// on a fresh run and on runs whose previous holder was killed with SIGKILL while holding the lock.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LOCK_OWNER_FILE } from './lock.ts';
import { RunStore } from './run-store.ts';

const repoRoot = resolve(import.meta.dirname, '../..');
const childScript = join(import.meta.dirname, '../testing/runs/lock-child.ts');
const processes = 20;
const trials = 50;
const createTrials = 10;

function startChild(args: string[]): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', childScript, ...args], {
    cwd: repoRoot,
    env: { PATH: process.env.PATH ?? '' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

async function waitFor(condition: () => boolean, what: string, timeoutMs = 60_000): Promise<void> {
  const start = Date.now();
  while (!condition()) {
    if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((done) => setTimeout(done, 5));
  }
}

/** Starts trial `trial` for every child (its go file) and returns their results, in child order. */
async function runTrial(control: string, trial: number): Promise<string[]> {
  writeFileSync(join(control, `go-${trial}`), '');
  const resultPath = (index: number) => join(control, `result-${trial}-${index}`);
  await waitFor(
    () => Array.from({ length: processes }, (_, index) => existsSync(resultPath(index))).every(Boolean),
    `the results of trial ${trial}`,
  );
  return Array.from({ length: processes }, (_, index) => readFileSync(resultPath(index), 'utf8'));
}

function makeRuns(root: string, prefix: string, count: number): string[] {
  return Array.from({ length: count }, (_, i) => {
    const dir = join(root, `${prefix}-${i}`);
    RunStore.create(dir, { trial: i }).close();
    return dir;
  });
}

describe('run lock', () => {
  const children: ChildProcess[] = [];
  afterAll(() => {
    for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  });

  it(`gives a run to exactly one of ${processes} processes that start together, ${trials} times, with or without a killed holder's lock left behind`, async () => {
    const root = mkdtempSync(join(tmpdir(), 'curricula-lock-'));
    const fresh = makeRuns(root, 'fresh', trials);
    const abandoned = makeRuns(root, 'abandoned', trials);

    // A process takes the lock of every `abandoned` run and is killed with SIGKILL while holding them.
    const holdControl = join(root, 'hold');
    mkdirSync(holdControl);
    const holder = startChild(['--hold', holdControl, ...abandoned]);
    children.push(holder);
    await waitFor(() => existsSync(join(holdControl, 'holding')), 'the holder to take its locks');
    const exited = new Promise((done) => holder.once('exit', done));
    holder.kill('SIGKILL');
    await exited;
    for (const dir of abandoned) {
      expect(JSON.parse(readFileSync(join(dir, LOCK_OWNER_FILE), 'utf8')).pid).toBe(holder.pid);
    }

    const control = join(root, 'control');
    mkdirSync(control);
    const runDirs = [...fresh, ...abandoned];
    for (let index = 0; index < processes; index++) {
      children.push(startChild([control, String(index), ...runDirs]));
    }
    const holdersPerTrial: number[] = [];
    const refusals: string[] = [];
    for (let trial = 0; trial < runDirs.length; trial++) {
      const results = await runTrial(control, trial);
      holdersPerTrial.push(results.filter((result) => result === 'held').length);
      refusals.push(...results.filter((result) => result !== 'held'));
      writeFileSync(join(control, `done-${trial}`), '');
    }
    expect(holdersPerTrial).toEqual(runDirs.map(() => 1));
    for (const refusal of refusals) {
      expect(refusal).toMatch(/^refused run .* is in use by (process \d+|another process)/);
    }
  }, 180_000);

  it(`lets exactly one of ${processes} processes create a new run of the same name, the others get one clear line`, async () => {
    const root = mkdtempSync(join(tmpdir(), 'curricula-create-'));
    const runDirs = Array.from({ length: createTrials }, (_, i) => join(root, `new-${i}`));
    const control = join(root, 'control');
    mkdirSync(control);
    for (let index = 0; index < processes; index++) {
      children.push(startChild(['--create', control, String(index), ...runDirs]));
    }
    for (let trial = 0; trial < runDirs.length; trial++) {
      const results = await runTrial(control, trial);
      const creators = results.flatMap((result, index) => (result === 'held' ? [index] : []));
      expect(creators).toHaveLength(1);
      for (const result of results.filter((result) => result !== 'held')) {
        expect(result).toMatch(/^refused run directory .* already exists/);
      }
      // The run holds the winner's config: no loser replaced it.
      expect(JSON.parse(readFileSync(join(runDirs[trial], 'config.json'), 'utf8'))).toEqual({
        creator: String(creators[0]),
      });
      writeFileSync(join(control, `done-${trial}`), '');
    }
    // No loser left its staging directory behind.
    expect(readdirSync(root).filter((name) => name.includes('.creating-'))).toEqual([]);
  }, 120_000);
});
