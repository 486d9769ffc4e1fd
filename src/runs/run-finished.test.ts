// A run is finished when a `finished` event follows its last start; a resume reopens it.
import { describe, expect, it } from 'vitest';
import { finishedByEvents } from './run-finished.ts';

const at = (...kinds: string[]) => kinds.map((kind, index) => ({ kind, time: `t${index}`, detail: null }));

describe('finishedByEvents', () => {
  it('finished after its last start only', () => {
    expect(finishedByEvents(at('created', 'finished'))).toBe(true);
    expect(finishedByEvents(at('created'))).toBe(false);
    expect(finishedByEvents(at('created', 'finished', 'resumed'))).toBe(false);
    expect(finishedByEvents(at('created', 'finished', 'resumed', 'finished'))).toBe(true);
  });
});
