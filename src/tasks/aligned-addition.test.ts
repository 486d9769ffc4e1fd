import { describe, expect, it } from 'vitest';
import { Rng } from '../core/rng.ts';
import {
  alignedAddition,
  alignedAdditionCanonicalKey,
  alignedAdditionProblem,
  parseAlignedAdditionProblem,
} from './aligned-addition.ts';
import { sequenceTokens } from './lengths.ts';

describe('aligned-addition', () => {
  it('right-aligns both operands in 10 characters and keeps addition’s trace', () => {
    const problem = alignedAdditionProblem('758', '67');
    expect(problem.prompt).toBe('.......758+.......067\n');
    expect(problem.solution).toBe('8+7+0=15\n5+6+1=12\n7+0+1=08\nA:825');
    expect(problem.difficulty).toBe(3);
    expect(problem.id).toMatch(/^aligned-addition-3-[0-9a-f]{12}$/);
    expect(() => alignedAdditionProblem('12345678901', '1')).toThrow('more than 10 digits');
  });

  it('puts digit i from the right at the same prompt offset at every length', () => {
    const rng = new Rng(3);
    for (let digits = 1; digits <= 10; digits++) {
      const problem = alignedAddition.generate(rng, digits);
      expect(problem.prompt.length).toBe(22);
      const [left, right] = problem.prompt.trim().split('+');
      expect(left.replace(/^\.+/, '').length).toBe(digits);
      expect(right.replace(/^\.+/, '').length).toBe(digits);
      expect(problem.answer).toBe(String(BigInt(left.replace(/\./g, '')) + BigInt(right.replace(/\./g, ''))));
      expect(alignedAddition.verify(problem, problem.solution).correct).toBe(true);
    }
  });

  it('attains its length bound 10d+27 (128-token context at 10 digits)', () => {
    const longest = alignedAdditionProblem('9999999999', '9999999999');
    expect(sequenceTokens(longest.prompt, longest.solution)).toBe(alignedAddition.maxSequenceTokens!(10));
    expect(alignedAddition.maxSequenceTokens!(10)).toBe(127);
  });

  it('gives swapped and padded twins one canonical key', () => {
    const key = alignedAdditionCanonicalKey(alignedAdditionProblem('758', '67'));
    expect(key).toBe('aligned-addition:67+758');
    expect(alignedAdditionCanonicalKey(alignedAdditionProblem('67', '758'))).toBe(key);
    expect(alignedAdditionCanonicalKey(alignedAdditionProblem('758', '68'))).not.toBe(key);
  });

  it('parses self-play statements with or without the dots, and refuses others with a reason', () => {
    const parsed = parseAlignedAdditionProblem('..12+7\nrest');
    expect(parsed.ok && parsed.problem.prompt).toBe('........12+........07\n');
    expect(parseAlignedAdditionProblem('12+x')).toMatchObject({ ok: false, reason: 'unparsable' });
    expect(parseAlignedAdditionProblem('12345678901+1')).toMatchObject({
      ok: false,
      reason: 'out-of-grammar',
    });
  });
});
