// Whether a run is running, finished or crashed, told WITHOUT taking its lock. lock.ts holds an OS lock on
// lock.sqlite for as long as a writer runs; probing that lock (even a shared one) could make a trainer that
// starts at the same moment fail its `BEGIN EXCLUSIVE` (timeout 0), so the dashboard never touches
// lock.sqlite. Instead it reads lock-owner.json, which the holder writes after taking the lock and removes
// before releasing it: present with a live pid on this host ⇒ running; a `finished` event after the last
// `created`/`resumed` ⇒ finished; anything else ⇒ crashed (killed, or stopped without finishing).
// Deviation: a writer on another host (shared filesystem) is taken as running while its owner file exists.
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { processAlive } from '../core/process-alive.ts';
import { LOCK_OWNER_FILE } from '../runs/lock.ts';
import { finishedByEvents } from '../runs/run-finished.ts';
import type { RunEvent } from '../runs/run-store.ts';

export type RunStatus = 'running' | 'finished' | 'crashed';

export function runStatus(dir: string, events: readonly RunEvent[]): RunStatus {
  if (writerAlive(dir)) return 'running';
  return finishedByEvents(events) ? 'finished' : 'crashed';
}

function writerAlive(dir: string): boolean {
  let owner: { pid?: unknown; host?: unknown };
  try {
    owner = JSON.parse(readFileSync(join(dir, LOCK_OWNER_FILE), 'utf8'));
  } catch {
    return false;
  }
  if (typeof owner.pid !== 'number') return false;
  return owner.host !== hostname() || processAlive(owner.pid);
}
