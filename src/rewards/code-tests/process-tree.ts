// Memory of a whole process tree, for the sandbox's watchdog: rlimits are per process, so the resident
// memory of every descendant is summed from Linux /proc.
import { readdirSync, readFileSync } from 'node:fs';

const pageBytes = 4096;

/** Resident bytes of `rootPid` and all its descendants (Linux /proc; threads' children included). */
export function treeResidentBytes(rootPid: number): number {
  let total = 0;
  const stack = [rootPid];
  for (let visited = 0; stack.length > 0 && visited < 10_000; visited++) {
    const pid = stack.pop()!;
    try {
      total += Number(readFileSync(`/proc/${pid}/statm`, 'utf8').split(' ')[1]) * pageBytes;
      for (const task of readdirSync(`/proc/${pid}/task`)) {
        const children = readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim();
        if (children) for (const child of children.split(' ')) stack.push(Number(child));
      }
    } catch {
      // exited while we looked
    }
  }
  return total;
}
