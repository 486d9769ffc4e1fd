// createProgress's lines on a fake stream with an injected clock; every expected line is worked out by hand.
import { describe, expect, it } from 'vitest';
import { createProgress } from './progress.ts';

function fakeStream(isTTY: boolean) {
  const writes: string[] = [];
  const stream = { isTTY, columns: 200, write: (text: string) => writes.push(text) > 0 };
  return { stream: stream as unknown as NodeJS.WriteStream, writes };
}

/** A clock the test sets: `clock.at(seconds)` and `clock.now()` in milliseconds. */
function fakeClock() {
  let ms = 0;
  return { now: () => ms, at: (seconds: number) => (ms = seconds * 1000) };
}

describe('createProgress off a terminal (one line per 10%)', () => {
  it('shows time so far, the rate and the time left, the rate counted from the first update', () => {
    const { stream, writes } = fakeStream(false);
    const clock = fakeClock();
    const progress = createProgress('train', 100, { stream, now: clock.now });
    // 4.8 s of start-up, then 1.2 s a step: step n ends at 4.8 + 1.2 n s.
    for (let step = 1; step <= 100; step++) {
      clock.at((4800 + 1200 * step) / 1000);
      progress.update(step, { reward: 0.5 });
    }
    progress.stop();
    expect(writes).toEqual([
      // The first update anchors the rate: no rate yet.
      'train 1/100 (6s) reward 0.500\n',
      // 18 s; (18 − 6) s / 10 steps = 1.2 s/step; 89 × 1.2 = 106.8 s left.
      'train 11/100 (18s, 1.2 s/step, ~1m47s left) reward 0.500\n',
      // 30 s; 79 × 1.2 = 94.8 s left. And so on, 12 s and 10 steps a line.
      'train 21/100 (30s, 1.2 s/step, ~1m35s left) reward 0.500\n',
      'train 31/100 (42s, 1.2 s/step, ~1m23s left) reward 0.500\n',
      'train 41/100 (54s, 1.2 s/step, ~1m11s left) reward 0.500\n',
      'train 51/100 (1m06s, 1.2 s/step, ~59s left) reward 0.500\n',
      'train 61/100 (1m18s, 1.2 s/step, ~47s left) reward 0.500\n',
      'train 71/100 (1m30s, 1.2 s/step, ~35s left) reward 0.500\n',
      'train 81/100 (1m42s, 1.2 s/step, ~23s left) reward 0.500\n',
      'train 91/100 (1m54s, 1.2 s/step, ~11s left) reward 0.500\n',
      // The last step always gets a line: 124.8 s, nothing left.
      'train 100/100 (2m05s, 1.2 s/step) reward 0.500\n',
    ]);
  });

  it("a resumed run's rate starts at its first update, not at 0", () => {
    const { stream, writes } = fakeStream(false);
    const clock = fakeClock();
    const progress = createProgress('train', 100, { stream, now: clock.now });
    clock.at(2);
    progress.update(51);
    clock.at(14);
    progress.update(61);
    // (14 − 2) s / 10 steps = 1.2 s/step; 39 × 1.2 = 46.8 s left.
    expect(writes).toEqual(['train 51/100 (2s)\n', 'train 61/100 (14s, 1.2 s/step, ~47s left)\n']);
  });

  it('writes fast units as a count per second, in the unit given', () => {
    const { stream, writes } = fakeStream(false);
    const clock = fakeClock();
    const progress = createProgress('eval', 200, { stream, now: clock.now, unit: 'problem' });
    clock.at(0.4);
    progress.update(0);
    clock.at(1.4);
    progress.update(20);
    // 1 s / 20 problems = 0.05 s each = 20 problems/s; 180 × 0.05 = 9 s left.
    expect(writes).toEqual(['eval 0/200 (0s)\n', 'eval 20/200 (1s, 20 problems/s, ~9s left)\n']);
  });

  it('keeps a step of about a second in s/step (the unit does not flip at 1 s)', () => {
    const { stream, writes } = fakeStream(false);
    const clock = fakeClock();
    const progress = createProgress('RL', 120, { stream, now: clock.now });
    clock.at(6);
    progress.update(1);
    clock.at(15.6);
    progress.update(13);
    // 9.6 s / 12 steps = 0.8 s/step (not 1.25 steps/s); 107 × 0.8 = 85.6 s left.
    expect(writes).toEqual(['RL 1/120 (6s)\n', 'RL 13/120 (16s, 0.8 s/step, ~1m26s left)\n']);
  });
});

describe('createProgress on a terminal', () => {
  it('shows the same timing in the bar', () => {
    const { stream, writes } = fakeStream(true);
    const clock = fakeClock();
    const progress = createProgress('train', 100, { stream, now: clock.now });
    clock.at(6);
    progress.update(1);
    clock.at(18);
    progress.update(11, { reward: 0.5 });
    progress.stop();
    expect(writes.join('')).toContain('11/100 | 18s, 1.2 s/step, ~1m47s left | reward 0.500');
  });

  it('is silent with quiet', () => {
    const { stream, writes } = fakeStream(false);
    const progress = createProgress('train', 10, { stream, quiet: true });
    progress.update(10);
    progress.log('hello');
    expect(writes).toEqual([]);
  });
});
