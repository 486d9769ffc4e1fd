import { describe, expect, it } from 'vitest';
import { splitByCost } from './parallel-split.ts';

describe('splitByCost', () => {
  it('cuts contiguous chunks of nearly equal cost (hand-computed)', () => {
    // Total 20, halves at 10: prefixes 0, 8, 10, 13, 20 → cut after the second item (exactly 10).
    expect(splitByCost([8, 2, 3, 7], 2)).toEqual([
      [0, 2],
      [2, 4],
    ]);
    // Total 12, thirds at 4 and 8: prefixes 0, 1, 2, 3, 10, 11, 12 → cuts at 3 (|3−4| < |10−4|) and 4.
    expect(splitByCost([1, 1, 1, 7, 1, 1], 3)).toEqual([
      [0, 3],
      [3, 4],
      [4, 6],
    ]);
    // Target 2.5 lies halfway between prefixes 2 and 3: a tie takes the later cut.
    expect(splitByCost([1, 1, 1, 1, 1], 2)).toEqual([
      [0, 3],
      [3, 5],
    ]);
  });

  it('leaves parts empty when there are fewer items than parts, and covers everything once', () => {
    expect(splitByCost([5], 3)).toEqual([
      [0, 0],
      [0, 1],
      [1, 1],
    ]);
    expect(splitByCost([], 2)).toEqual([
      [0, 0],
      [0, 0],
    ]);
    expect(splitByCost([4, 9, 1], 1)).toEqual([[0, 3]]);
  });

  it('rejects a bad part count or cost', () => {
    expect(() => splitByCost([1], 0)).toThrow(/parts/);
    expect(() => splitByCost([Number.NaN], 2)).toThrow(/costs/);
  });
});
