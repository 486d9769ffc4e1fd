import { describe, expect, it } from 'vitest';
import { ConfigError, UnknownNameError } from '../core/errors.ts';
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

  it('refuses a spec that selects nothing or levels the task does not have', () => {
    expect(() => parseTaskSpec('addition:4-1')).toThrow(
      '--tasks: addition:4-1 is a reversed range and selects nothing; write addition:1-4',
    );
    expect(() => parseTaskSpec('addition:1+3-2')).toThrow(ConfigError);
    expect(() => parseTaskSpec('addition:')).toThrow(/cannot read difficulties ''/);
    expect(() => parseTaskSpec('')).toThrow("--tasks '' selects no task");
    expect(() => parseTaskSpec(' , ')).toThrow(/selects no task/);
    expect(() => parseTaskSpec('addition:0-2')).toThrow(
      "addition:0-2 is outside addition's difficulties 1-12",
    );
    expect(() => parseTaskSpec('addition:13')).toThrow(/outside/);
  });

  it('merges overlapping parts into one sorted list', () => {
    expect(parseTaskSpec('addition:3-4+1+3')[0].difficulties).toEqual([1, 3, 4]);
  });
});
