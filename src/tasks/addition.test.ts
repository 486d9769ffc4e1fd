import { describe, expect, it } from 'vitest';
import { Rng } from '../core/rng.ts';
import { addition, additionProblem, additionTrace } from './addition.ts';

describe('addition', () => {
  it('writes the hand-checked trace for 758+67 (prompt zero-padded to equal widths)', () => {
    const problem = additionProblem('758', '67');
    expect(problem.prompt).toBe('758+067\n');
    expect(problem.solution).toBe('8+7+0=15\n5+6+1=12\n7+0+1=08\nA:825');
    expect(problem.answer).toBe('825');
    expect(problem.difficulty).toBe(3);
    expect(problem.params).toEqual({ digits: 3, digitsA: 3, digitsB: 2 });
    expect(problem.id).toMatch(/^addition-3-[0-9a-f]{12}$/);
  });

  it('writes the final carry as a leading digit: 95+7 = 102, 0+0 = 0', () => {
    expect(additionTrace('95', '7')).toEqual({ columns: ['5+7+0=12', '9+0+1=10'], sum: '102' });
    expect(additionTrace('0', '0')).toEqual({ columns: ['0+0+0=00'], sum: '0' });
    expect(additionTrace('999', '1').sum).toBe('1000');
  });

  it('solutions verify and answers equal BigInt sums at every difficulty', () => {
    const rng = new Rng(1);
    for (let digits = 1; digits <= 12; digits++) {
      for (let i = 0; i < 50; i++) {
        const problem = addition.generate(rng, digits);
        const [left, right] = problem.prompt.trim().split('+');
        expect(Math.max(left.length, right.length)).toBe(digits);
        expect(problem.answer).toBe(String(BigInt(left) + BigInt(right)));
        expect(addition.verify(problem, problem.solution)).toEqual({
          correct: true,
          extracted: problem.answer,
        });
      }
    }
  });

  it('rejects wrong answers and grades garbage with a reason', () => {
    const problem = additionProblem('758', '67');
    expect(addition.verify(problem, 'A:826')).toEqual({
      correct: false,
      extracted: '826',
      reason: "answer '826' is wrong",
    });
    expect(addition.verify(problem, '825')).toMatchObject({ correct: false, extracted: null });
    expect(addition.verify(problem, '')).toMatchObject({ correct: false, extracted: null });
    expect(addition.verify(problem, 'A:\n')).toMatchObject({ correct: false, extracted: null });
    expect(addition.verify(problem, '\u0000\uffffA:')).toMatchObject({ correct: false, extracted: null });
    expect(addition.verify(problem, 'xA:825')).toMatchObject({ correct: false, extracted: null });
    // the last answer line wins; text after it on later lines is ignored
    expect(addition.verify(problem, 'A:1\nA: 825 \nnoise').correct).toBe(true);
    expect(addition.verify(problem, null as unknown as string)).toMatchObject({
      correct: false,
      extracted: null,
    });
  });

  it('is deterministic by seed and honours per-operand digit knobs', () => {
    const first = addition.generate(new Rng(42), 5);
    expect(addition.generate(new Rng(42), 5)).toEqual(first);
    const fromParams = addition.generateFromParams!(new Rng(3), { digitsA: 2.4, digitsB: 40 });
    expect(fromParams.params).toMatchObject({ digitsA: 2, digitsB: 12, digits: 12 });
    expect(() => addition.generate(new Rng(1), 13)).toThrow(RangeError);
  });
});
