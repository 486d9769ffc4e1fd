// Whether a run's events say it finished: a `finished` event after its last `created`/`resumed` (a run
// resumed to extend it is not finished until it finishes again). The dashboard's status (run-status.ts)
// and `curricula sweep` (which skips finished runs) read it the same way.
import type { RunEvent } from './run-store.ts';

export function finishedByEvents(events: readonly RunEvent[]): boolean {
  let finished = false;
  for (const event of events) {
    if (event.kind === 'created' || event.kind === 'resumed') finished = false;
    if (event.kind === 'finished') finished = true;
  }
  return finished;
}
