import { describe, expect, it } from 'vitest';
import { microBatches, padBatch, unpadRows } from './teacher-forcing.ts';

describe('teacher-forcing batches', () => {
  it('pads inputs, targets and weights on the right', () => {
    const batch = padBatch(
      [
        [1, 5, 6, 2],
        [1, 7],
      ],
      [[0, 0.5, 1], [2]],
      0,
    );
    expect(batch.time).toBe(3);
    expect(Array.from(batch.inputs)).toEqual([1, 5, 6, 1, 0, 0]);
    expect(Array.from(batch.targets)).toEqual([5, 6, 2, 7, 0, 0]);
    expect(Array.from(batch.weights)).toEqual([0, 0.5, 1, 2, 0, 0]);
    expect(unpadRows(new Float32Array([1, 2, 3, 4, 5, 6]), 3, batch.lengths)).toEqual([[1, 2, 3], [4]]);
  });

  it('groups longest first within the token budget, every index exactly once', () => {
    // lengths 3, 10, 4, 10, 1 with budget 20: [10, 10] (2 × 10), then [4, 3, 1] (3 × 4 = 12).
    expect(microBatches([3, 10, 4, 10, 1], 20)).toEqual([
      [1, 3],
      [2, 0, 4],
    ]);
    // An item longer than the budget still gets a group.
    expect(microBatches([50, 2], 20)).toEqual([[0], [1]]);
    expect(microBatches([], 20)).toEqual([]);
  });
});
