// An exclusive write lock on a run directory: a `lock` file created with O_EXCL holding the owner's pid.
// A second process that opens the same run for writing is refused with a clear message; a lock left by a
// process that no longer exists (e.g. after kill -9) is taken over.
import { closeSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { UserError } from '../core/errors.ts';

export class RunLockedError extends UserError {
  override name = 'RunLockedError';
}

export interface RunLock {
  release(): void;
}

export function acquireRunLock(runDir: string): RunLock {
  const path = join(runDir, 'lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, 'wx');
      writeSync(fd, JSON.stringify({ pid: process.pid, host: hostname(), since: new Date().toISOString() }));
      closeSync(fd);
      let released = false;
      return {
        release() {
          if (released) return;
          released = true;
          rmSync(path, { force: true });
        },
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const owner = readOwner(path);
      if (owner && owner.host === hostname() && isAlive(owner.pid)) {
        throw new RunLockedError(
          `run ${runDir} is in use by process ${owner.pid} (since ${owner.since}); stop it first, or use another run name`,
        );
      }
      // Stale lock (owner gone, or unreadable because the owner died while writing it): take it over.
      rmSync(path, { force: true });
    }
  }
  throw new RunLockedError(`could not lock run ${runDir}: another process keeps taking the lock`);
}

function readOwner(path: string): { pid: number; host: string; since: string } | null {
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    return null;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
