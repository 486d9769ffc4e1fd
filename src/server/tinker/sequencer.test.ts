// The Sequencer's resume mode (a model restored after a restart, durability.ts): the order continues after
// the last durable seq_id; late predecessors within the grace period are waited for (the stock SDK sends
// chunks in parallel); a gap that outlasts it is reported once and the order continues; stale seq_ids are
// refused.
import { describe, expect, it } from 'vitest';
import { Sequencer } from './sequencer.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function harness(lastSeqId: number, graceMs: number) {
  const sequencer = new Sequencer(5_000);
  const ran: number[] = [];
  const gaps: [number, number][] = [];
  const failed: string[] = [];
  sequencer.resumeAfter(lastSeqId, graceMs, (from, to) => gaps.push([from, to]));
  const submit = (seqId: number) =>
    sequencer.submit(
      seqId,
      async () => {
        ran.push(seqId);
      },
      (message) => failed.push(message),
    );
  return { sequencer, ran, gaps, failed, submit };
}

describe('Sequencer resume mode', () => {
  it('runs the next seq_id after the durable one at once, with no gap', async () => {
    const { sequencer, ran, gaps, submit } = harness(4, 40);
    submit(5);
    submit(6);
    await sleep(80);
    expect(ran).toEqual([5, 6]);
    expect(gaps).toEqual([]);
    expect(() => sequencer.check(4)).toThrow(/already received/);
    sequencer.close();
  });

  it('waits for a predecessor that arrives within the grace period (parallel chunks)', async () => {
    const { sequencer, ran, gaps, submit } = harness(4, 60);
    submit(6);
    await sleep(10);
    submit(5);
    await sleep(100);
    expect(ran).toEqual([5, 6]);
    expect(gaps).toEqual([]);
    sequencer.close();
  });

  it('reports a gap that outlasts the grace period once and continues from the earliest waiting seq_id', async () => {
    const { sequencer, ran, gaps, failed, submit } = harness(4, 40);
    submit(8);
    submit(7);
    await sleep(20);
    expect(ran).toEqual([]);
    await sleep(60);
    expect(gaps).toEqual([[5, 6]]);
    expect(ran).toEqual([7, 8]);
    // Later gaps are ordinary waits (the restart is over), and the lost seq_ids are stale now.
    expect(() => sequencer.check(5)).toThrow(/already received/);
    submit(10);
    await sleep(60);
    expect(ran).toEqual([7, 8]);
    expect(gaps).toHaveLength(1);
    expect(failed).toEqual([]);
    sequencer.close();
  });
});
