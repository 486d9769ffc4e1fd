// The directories a run has while it is being created or removed, beside it in the runs directory:
// `<name>.creating-<pid>` (staged, then renamed to `<name>`, so a half-made run never appears under its
// name) and `.<name>.removing-<pid>-<ms>` (an overwritten run renamed aside, so its name is free at once,
// then deleted). A kill can leave either behind; removeAbandoned clears those of dead processes.
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { writeFileAtomic } from '../core/durable-files.ts';
import { UserError } from '../core/errors.ts';
import { processAlive } from '../core/process-alive.ts';

/**
 * Builds run `dir` (absolute; not there) with its config.json, an empty metrics.jsonl and checkpoints/
 * under its staging name, then renames it into place; a run another process created meanwhile is left
 * intact and refused with a UserError.
 */
export function stageRunDirectory(dir: string, config: unknown): void {
  mkdirSync(dirname(dir), { recursive: true });
  removeAbandoned(dir);
  const staging = stagingPath(dir);
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(join(staging, 'checkpoints'), { recursive: true });
  writeFileAtomic(join(staging, 'config.json'), `${JSON.stringify(config, null, 2)}\n`);
  writeFileAtomic(join(staging, 'metrics.jsonl'), '');
  try {
    renameSync(staging, dir);
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    // Another process created the run between the existsSync check and here (rename never replaces a
    // non-empty directory, so its run is intact).
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'ENOTEMPTY' && code !== 'EEXIST') throw error;
    throw new UserError(
      `run directory ${dir} already exists (another process created it just now); resume it with --resume ${dir}, or choose another name`,
    );
  }
}

/** Where this process stages run `dir` before renaming it into place. */
export function stagingPath(dir: string): string {
  return `${dir}.creating-${process.pid}`;
}

/** Where this process moves run `dir` aside before deleting it (a dot name: never a run's). */
export function removingPath(dir: string): string {
  return join(dirname(dir), `.${basename(dir)}.removing-${process.pid}-${Date.now()}`);
}

/**
 * Removes what a create or an overwrite of this run name left when its process was killed: staging
 * directories without run.sqlite (one with it is a user's run that happens to have such a name) and
 * removal directories, once their pid is gone. Nothing else in the runs directory is touched.
 */
export function removeAbandoned(dir: string): void {
  const parent = dirname(dir);
  const name = basename(dir);
  for (const entry of readdirSync(parent)) {
    const stagingPid = pidAfter(entry, `${name}.creating-`, /^(\d+)$/);
    const removingPid = pidAfter(entry, `.${name}.removing-`, /^(\d+)-\d+$/);
    const pid = stagingPid ?? removingPid;
    if (pid === undefined || pid === process.pid || processAlive(pid)) continue;
    const path = join(parent, entry);
    if (stagingPid !== undefined && existsSync(join(path, 'run.sqlite'))) continue;
    rmSync(path, { recursive: true, force: true });
  }
}

/** The pid in `<prefix><rest>` when rest matches `pattern` (its first group), else undefined. */
function pidAfter(entry: string, prefix: string, pattern: RegExp): number | undefined {
  if (!entry.startsWith(prefix)) return undefined;
  const match = pattern.exec(entry.slice(prefix.length));
  return match ? Number(match[1]) : undefined;
}
