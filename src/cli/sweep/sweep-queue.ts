// A sweep's queue, kept in <out>/sweep.json so that the sweep survives its own restart: what was asked
// (config, grid, seeds, extra overrides) and each run's status. Written whole to a temporary file and
// renamed, so a kill leaves the old or the new queue, never half of one. A restart with the same request
// continues it (runs that were running go back to pending: the run directory says whether to resume
// them); a different request in the same directory is refused. <out>/sweep.lock holds the pid of the
// sweep that owns the directory (one sweep per directory; a lock whose process is gone is taken over).
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { UserError } from '../../core/errors.ts';
import { processAlive } from '../../core/process-alive.ts';
import type { GridAxis, SweepRun } from './sweep-plan.ts';

export type RunStatus = 'pending' | 'running' | 'finished' | 'failed';

export interface QueueEntry extends SweepRun {
  status: RunStatus;
  /** Times a train process was started for it. */
  attempts: number;
  /** The last process's exit code (null: killed by a signal). */
  exitCode?: number | null;
}

/** What the sweep was asked for: a restart must ask the same. */
export interface SweepRequest {
  config: string;
  grid: GridAxis[];
  seeds: number[];
  prefix: string;
  sets: string[];
}

export interface SweepQueue {
  version: 1;
  request: SweepRequest;
  runs: QueueEntry[];
}

export const queueFile = (out: string) => join(out, 'sweep.json');

/** The queue of `out`: the saved one when it asked the same, else a new one of `runs`. */
export function openQueue(
  out: string,
  request: SweepRequest,
  runs: readonly SweepRun[],
  retryFailed: boolean,
): SweepQueue {
  const path = queueFile(out);
  if (!existsSync(path)) {
    return { version: 1, request, runs: runs.map((run) => ({ ...run, status: 'pending', attempts: 0 })) };
  }
  let saved: SweepQueue;
  try {
    saved = JSON.parse(readFileSync(path, 'utf8')) as SweepQueue;
  } catch (error) {
    throw new UserError(
      `${path} is not a sweep queue (${(error as Error).message}); remove it or choose another --out`,
    );
  }
  if (JSON.stringify(saved.request) !== JSON.stringify(request)) {
    throw new UserError(
      `${out} holds another sweep (${path}: config ${saved.request?.config}, grid ${JSON.stringify(saved.request?.grid)}, seeds ${saved.request?.seeds}); choose another --out, or ask for the same sweep to continue it`,
    );
  }
  for (const entry of saved.runs) {
    if (entry.status === 'running' || (retryFailed && entry.status === 'failed')) entry.status = 'pending';
  }
  return saved;
}

export function saveQueue(out: string, queue: SweepQueue): void {
  const path = queueFile(out);
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(queue, null, 2)}\n`);
  renameSync(temporary, path);
}

/** Takes <out>/sweep.lock for this process; returns its release. */
export function lockSweep(out: string): () => void {
  mkdirSync(out, { recursive: true });
  const path = join(out, 'sweep.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, 'wx');
      writeFileSync(fd, `${process.pid}\n`);
      closeSync(fd);
      return () => rmSync(path, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const pid = Number(readFileSync(path, 'utf8').trim());
      if (Number.isInteger(pid) && pid > 0 && processAlive(pid)) {
        throw new UserError(`another sweep (pid ${pid}) is running in ${out}; wait for it or stop it first`);
      }
      rmSync(path, { force: true });
    }
  }
  throw new UserError(`could not take ${path}`);
}
