// addition-unanswerable: every prompt is an addition prompt of its level with exactly one operand digit
// replaced by `?` (so no sum is determined), only the refusal verifies, its sequences have the stated
// length, and the eval's refusal metrics count it as unanswerable.
import { describe, expect, it } from 'vitest';
import { Rng } from '../core/rng.ts';
import { refusalMetrics } from '../eval/refusal.ts';
import { addition } from './addition.ts';
import { unanswerableAddition } from './unanswerable-addition.ts';
import { isUnanswerable, refusalAnswer } from './unanswerable-countdown.ts';

describe('addition-unanswerable', () => {
  it('hides exactly one operand digit of an addition prompt, at every position', () => {
    const rng = new Rng(11);
    const positions = new Set<number>();
    for (let draw = 0; draw < 400; draw++) {
      const level = 1 + (draw % 6);
      const problem = unanswerableAddition.generate(rng, level);
      const hole = problem.prompt.indexOf('?');
      expect(problem.prompt.split('?')).toHaveLength(2);
      if (level === 3) positions.add(hole);
      // Any digit in the hole gives an addition problem of this level: the prompt is addition's format.
      for (const digit of ['0', '9']) {
        const parsed = addition.parseProblem?.(problem.prompt.replace('?', digit));
        expect(parsed?.ok).toBe(true);
        if (parsed?.ok) expect(`${parsed.problem.prompt}`).toBe(problem.prompt.replace('?', digit));
      }
      expect(isUnanswerable(problem)).toBe(true);
      expect(problem.difficulty).toBe(level);
      expect(1 + problem.prompt.length + problem.solution.length + 1).toBe(
        unanswerableAddition.maxSequenceTokens?.(level),
      );
    }
    // 3 digits: `abc+def\n`, the hole at each of the six digit positions and never at `+` (3) or `\n` (7).
    expect([...positions].sort()).toEqual([0, 1, 2, 4, 5, 6]);
  });

  it('pays only the refusal; a made-up sum or no answer line fails with a reason', () => {
    const problem = unanswerableAddition.generate(new Rng(2), 4);
    expect(unanswerableAddition.verify(problem, problem.solution)).toEqual({
      correct: true,
      extracted: refusalAnswer,
    });
    expect(unanswerableAddition.verify(problem, '1+2=3\nA:1234')).toMatchObject({
      correct: false,
      reason: expect.stringContaining('made-up'),
    });
    expect(unanswerableAddition.verify(problem, 'unanswerable')).toMatchObject({ correct: false });
  });

  it('is counted by the refusal metrics beside answerable addition', () => {
    const hidden = unanswerableAddition.generate(new Rng(3), 2);
    const plain = addition.generate(new Rng(3), 2);
    const metrics = refusalMetrics([
      { problem: hidden, completions: [`A:${refusalAnswer}`, 'A:12'], correct: [true, false] },
      { problem: plain, completions: [`A:${refusalAnswer}`, `A:${plain.answer}`], correct: [false, true] },
    ] as never);
    expect(metrics).toEqual({
      'eval/refusal/unanswerable_rate': 0.5,
      'eval/refusal/false_rate': 0.5,
      'eval/refusal/answerable_accuracy': 0.5,
    });
  });
});
