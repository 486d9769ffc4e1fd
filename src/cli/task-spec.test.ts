import { describe, expect, it } from 'vitest';
import { UnknownNameError } from '../core/errors.ts';
import { parseTaskSpec } from './task-spec.ts';

describe('parseTaskSpec', () => {
  it('reads ranges and lists', () => {
    expect(parseTaskSpec('addition:1-3')).toEqual([{ task: 'addition', difficulties: [1, 2, 3], weight: 1 }]);
    expect(parseTaskSpec('addition:1+4-5')[0].difficulties).toEqual([1, 4, 5]);
  });

  it('takes every difficulty when none is given', () => {
    expect(parseTaskSpec('addition')[0].difficulties).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
  });

  it('rejects unknown tasks and unreadable levels', () => {
    expect(() => parseTaskSpec('additon:1')).toThrow(UnknownNameError);
    expect(() => parseTaskSpec('addition:x')).toThrow(/cannot read difficulties 'x'/);
  });
});
