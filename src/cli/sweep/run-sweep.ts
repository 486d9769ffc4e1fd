// Runs a sweep's queue (sweep-queue.ts): at most `concurrency` `curricula train` processes at a time,
// each run in <out>/<name> with its output in <out>/logs/<name>.log. Before starting a run its directory
// says what to do: finished (a `finished` event after its last start: runs/run-finished.ts) → skipped;
// present → `train --resume` (from its latest checkpoint, or from step 0 when it has none: a kill
// before the first checkpoint); absent → a fresh run.
// The queue is saved after every change, so a killed sweep continues where it was; an abort (SIGINT or
// SIGTERM to the sweep) stops the running trainers with SIGTERM and leaves their runs pending (they
// resume from their last checkpoint: a killed run replays at most checkpoint.latestEvery − 1 steps).
import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { finishedByEvents } from '../../runs/run-finished.ts';
import { RunStore } from '../../runs/run-store.ts';
import { type QueueEntry, type SweepQueue, saveQueue } from './sweep-queue.ts';

/** Starts `curricula train <args>` with stdout and stderr to `log`; resolves with its exit code. */
export type StartTrain = (args: string[], log: string) => { done: Promise<number | null>; stop(): void };

const cliPath = fileURLToPath(new URL('../../../bin/curricula.mjs', import.meta.url));

export const startTrainProcess: StartTrain = (args, log) => {
  const fd = openSync(log, 'a');
  let child: ChildProcess;
  try {
    child = spawn(process.execPath, [cliPath, 'train', ...args], { stdio: ['ignore', fd, fd] });
  } finally {
    closeSync(fd);
  }
  const done = new Promise<number | null>((resolveDone) => {
    child.on('exit', (code) => resolveDone(code));
    child.on('error', () => resolveDone(-1));
  });
  return { done, stop: () => void child.kill('SIGTERM') };
};

export interface SweepRunOptions {
  out: string;
  queue: SweepQueue;
  concurrency: number;
  /** policy.workers of each run (replicas per trainer). */
  workers: number;
  signal?: AbortSignal;
  onProgress?: (line: string) => void;
  start?: StartTrain;
}

function isFinished(runDir: string): boolean {
  const store = RunStore.read(runDir);
  try {
    return finishedByEvents(store.events());
  } finally {
    store.close();
  }
}

/** The `curricula train` arguments of a run: resume its directory, or start it from the sweep's config. */
export function trainArgs(
  entry: QueueEntry,
  options: { out: string; queue: SweepQueue; workers: number },
): string[] {
  const runDir = join(options.out, entry.name);
  const common = ['--quiet', '--no-report'];
  if (existsSync(runDir)) return ['--resume', runDir, ...common];
  const { request } = options.queue;
  return [
    '--config',
    request.config,
    '--name',
    entry.name,
    '--seed',
    String(entry.seed),
    '--workers',
    String(options.workers),
    '--set',
    `runsDir=${resolve(options.out)}`,
    ...[...request.sets, ...entry.sets].flatMap((set) => ['--set', set]),
    ...common,
  ];
}

/** Runs the queue's pending runs; resolves when none is pending or running (or on abort). */
export async function runSweep(options: SweepRunOptions): Promise<SweepQueue> {
  const { out, queue } = options;
  const start = options.start ?? startTrainProcess;
  const say = options.onProgress ?? (() => undefined);
  mkdirSync(join(out, 'logs'), { recursive: true });
  const running = new Map<string, { stop(): void; done: Promise<void> }>();
  const count = (status: string) => queue.runs.filter((entry) => entry.status === status).length;
  const tally = () =>
    `${count('finished')}/${queue.runs.length} finished, ${running.size} running, ${count('failed')} failed`;
  const save = () => saveQueue(out, queue);

  const launch = (entry: QueueEntry) => {
    const runDir = join(out, entry.name);
    if (existsSync(runDir) && isFinished(runDir)) {
      entry.status = 'finished';
      save();
      say(`sweep: ${entry.name} already finished, skipped (${tally()})`);
      return;
    }
    const args = trainArgs(entry, { out, queue, workers: options.workers });
    const log = join(out, 'logs', `${entry.name}.log`);
    entry.status = 'running';
    entry.attempts++;
    save();
    const began = Date.now();
    const child = start(args, log);
    const done = child.done.then((code) => {
      running.delete(entry.name);
      entry.exitCode = code;
      if (options.signal?.aborted) entry.status = 'pending';
      else entry.status = code === 0 ? 'finished' : 'failed';
      save();
      const seconds = Math.round((Date.now() - began) / 1000);
      if (entry.status === 'finished') say(`sweep: ${entry.name} finished in ${seconds} s (${tally()})`);
      else if (entry.status === 'failed')
        say(`sweep: ${entry.name} failed (exit ${code}); see ${log} (${tally()})`);
    });
    running.set(entry.name, { stop: child.stop, done });
    say(`sweep: ${entry.name} ${args[0] === '--resume' ? 'resumed' : 'started'} (${tally()})`);
  };

  const onAbort = () => {
    for (const child of running.values()) child.stop();
  };
  options.signal?.addEventListener('abort', onAbort, { once: true });
  try {
    while (!options.signal?.aborted) {
      const next = queue.runs.find((entry) => entry.status === 'pending');
      if (next !== undefined && running.size < options.concurrency) {
        launch(next);
        continue;
      }
      if (running.size === 0) break;
      await Promise.race([...running.values()].map((child) => child.done));
    }
    await Promise.all([...running.values()].map((child) => child.done));
  } finally {
    options.signal?.removeEventListener('abort', onAbort);
  }
  return queue;
}
