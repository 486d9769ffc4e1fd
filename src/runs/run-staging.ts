// The directories a run has while it is being created or removed, beside it in the runs directory:
// `<name>.creating-<pid>` (staged, then renamed to `<name>`, so a half-made run never appears under its
// name) and `.<name>.removing-<pid>-<ms>` (an overwritten run renamed aside, so its name is free at once,
// then deleted). A kill can leave either behind; removeAbandoned clears those of dead processes.
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { processAlive } from '../core/process-alive.ts';

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
