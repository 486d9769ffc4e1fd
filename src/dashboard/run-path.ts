// Run names in URLs → run directories, checked to lie inside the runs directory before anything is read.
// A name must be a valid run name (run-name.ts: letters, digits, `_`, `-`, `.`, not starting with a dot),
// so `..`, `/`, a decoded `%2F` or `%2e%2e` and hidden names are refused; then the run directory and the
// runs directory are both resolved through symlinks (realpath) and the run's real parent must be the runs
// directory's real path, so a symlink `runs/evil -> /etc` is refused (403). Then every file of the run the
// dashboard opens (RUN_FILES: config.json, run.sqlite and SQLite's side files, metrics.jsonl,
// lock-owner.json) is resolved the same way: a symlink at any level that leads outside the runs
// directory, a broken link, or something that is not a regular file (a FIFO would block a read) is
// refused with 403 before any byte is read, and the message names only the file, never its target or its
// content. What stays: a file swapped for a link between this check and the read (the dashboard is
// read-only and opens each file by the path just checked), and hard links, which no path check can see.
import { existsSync, lstatSync, realpathSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { quoteInput } from '../core/quote-input.ts';
import { LOCK_OWNER_FILE } from '../runs/lock.ts';
import { RUN_NAME_MAX, RUN_NAME_PATTERN, RUN_NAME_RULE } from '../runs/run-name.ts';
import { isSameOrInside } from '../runs/run-store-files.ts';
import { DashboardError } from './errors.ts';

/** The files of a run directory the dashboard reads (RunStore.read, run-list.ts, run-status.ts). */
export const RUN_FILES = [
  'config.json',
  'run.sqlite',
  'run.sqlite-wal',
  'run.sqlite-shm',
  'run.sqlite-journal',
  'metrics.jsonl',
  LOCK_OWNER_FILE,
] as const;

/** The real path of the runs directory (a missing one is a clear error, not an empty list). */
export function realRunsDir(runsDir: string): string {
  const path = resolve(runsDir);
  if (!existsSync(path)) throw new DashboardError(400, `runs directory ${path} does not exist`);
  if (!statSync(path).isDirectory()) {
    throw new DashboardError(
      400,
      `runs directory ${path} is a file, not a directory; give --runs-dir a directory`,
    );
  }
  return realpathSync(path);
}

/**
 * `<runsDir>/<name>`, real path, checked to lie directly inside the (real) runs directory, with every
 * file the dashboard reads from it checked to lie inside the runs directory too (checkRunFiles).
 */
export function resolveRunDir(realRoot: string, name: string): string {
  if (name.length > RUN_NAME_MAX || !RUN_NAME_PATTERN.test(name)) {
    throw new DashboardError(400, `run name ${quoteInput(name)} is not allowed: ${RUN_NAME_RULE}`);
  }
  const candidate = resolve(realRoot, name);
  if (dirname(candidate) !== realRoot) {
    throw new DashboardError(
      400,
      `run name ${quoteInput(name)} does not name a directory inside the runs directory`,
    );
  }
  if (!existsSync(candidate)) throw new DashboardError(404, `no run named ${quoteInput(name)}`);
  const real = realpathSync(candidate);
  if (dirname(real) !== realRoot) {
    throw new DashboardError(
      403,
      `run ${quoteInput(name)} is a link to a directory outside the runs directory; refused`,
    );
  }
  checkRunFiles(realRoot, real, name);
  return real;
}

/** Each RUN_FILES entry that exists must resolve (realpath) to a regular file inside `realRoot`. */
export function checkRunFiles(realRoot: string, runDir: string, name: string): void {
  for (const file of RUN_FILES) {
    const path = join(runDir, file);
    try {
      lstatSync(path);
    } catch {
      continue; // absent: nothing to read
    }
    const refuse = (why: string) =>
      new DashboardError(403, `run ${quoteInput(name)}: ${file} ${why}; refused`);
    let real: string;
    try {
      real = realpathSync(path);
    } catch {
      throw refuse('is a broken link');
    }
    if (!isSameOrInside(real, realRoot)) throw refuse('is a link to a file outside the runs directory');
    if (!statSync(real).isFile()) throw refuse('is not a regular file');
  }
}
