// The ReLIFT buffer's order (a step's items in front, the authors' concat([new, old])), take(size) only
// when full, and its state across a save/load, including through JSON as a checkpoint stores it.
import { describe, expect, it } from 'vitest';
import { CheckpointError } from '../../../core/errors.ts';
import { type BufferItem, ReliftBuffer } from './relift-buffer.ts';

const item = (problemId: string, step: number): BufferItem => ({
  problemId,
  demonstration: `solution of ${problemId}`,
  step,
});

describe('ReliftBuffer', () => {
  it('puts each step in front, in batch order, and takes the first `size` only when it holds that many', () => {
    const buffer = new ReliftBuffer();
    buffer.add([item('a', 1), item('b', 1)]);
    expect(buffer.take(3)).toBeNull();
    expect(buffer.size).toBe(2);
    buffer.add([item('c', 2), item('d', 2)]);
    expect(buffer.take(3)?.map((entry) => entry.problemId)).toEqual(['c', 'd', 'a']);
    expect(buffer.size).toBe(1);
    buffer.add([]);
    expect(buffer.take(1)?.map((entry) => entry.problemId)).toEqual(['b']);
    expect(buffer.size).toBe(0);
    expect(buffer.take(1)).toBeNull();
  });

  it('keeps a problem that fails twice twice (no de-duplication, as the authors)', () => {
    const buffer = new ReliftBuffer();
    buffer.add([item('a', 1)]);
    buffer.add([item('a', 2)]);
    expect(buffer.take(2)).toEqual([item('a', 2), item('a', 1)]);
  });

  it('a loaded state (through JSON) gives the same next takes; null/undefined load empty', () => {
    const buffer = new ReliftBuffer();
    buffer.add([item('a', 1), item('b', 1)]);
    buffer.add([item('c', 2)]);
    const fresh = new ReliftBuffer();
    fresh.load(JSON.parse(JSON.stringify(buffer.state())));
    expect(fresh.take(2)).toEqual(buffer.take(2));
    expect(fresh.state()).toEqual(buffer.state());
    fresh.load(null);
    expect(fresh.size).toBe(0);
    fresh.load(undefined);
    expect(fresh.size).toBe(0);
  });

  it('refuses a malformed state with a CheckpointError', () => {
    const buffer = new ReliftBuffer();
    expect(() => buffer.load({ items: [{ problemId: 'a' }] })).toThrow(CheckpointError);
    expect(() => buffer.load({ items: 'x' })).toThrow(/ReLIFT buffer is malformed/);
  });
});
