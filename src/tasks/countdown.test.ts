import { describe, expect, it } from 'vitest';
import type { Problem } from '../core/problem.ts';
import { Rng } from '../core/rng.ts';
import { countdown, countdownInstance } from './countdown.ts';
import { evaluateExpression, formatRational, parseExpression } from './countdown-expression.ts';
import { makeProblem } from './task.ts';

function instance(numbers: number[], target: number): Problem {
  return makeProblem({
    task: 'countdown',
    difficulty: numbers.length,
    prompt: `make ${target}:${numbers.join(',')}\n`,
    answer: '',
    solution: '',
    params: { count: numbers.length, maxNumber: 50 },
  });
}

describe('countdown expressions', () => {
  it('parses with precedence and evaluates exactly', () => {
    const value = (text: string) => formatRational(evaluateExpression(parseExpression(text)));
    expect(value('(25+3)*4')).toBe('112');
    expect(value('25+3*4')).toBe('37');
    expect(value('20-5-3')).toBe('12');
    expect(value('20-(5-3)')).toBe('18');
    expect(value('7/2')).toBe('7/2');
    expect(value('7/2*2')).toBe('7');
    expect(value(' 1 + 2 ')).toBe('3');
    expect(() => parseExpression('-3+4')).toThrow("expected a number or ( at position 0, found '-'");
    expect(() => parseExpression('(1+2')).toThrow("expected ')' at position 4, found end of expression");
    expect(() => parseExpression('2**3')).toThrow('position 2');
    expect(() => evaluateExpression(parseExpression('4/(2-2)'))).toThrow('division by zero');
  });
});

describe('countdown', () => {
  const problem = instance([25, 3, 4], 112);

  it('accepts the reference and any other valid expression using each number once', () => {
    expect(countdownInstance(problem)).toEqual({ numbers: [25, 3, 4], target: 112 });
    expect(countdown.verify(problem, 'A:(25+3)*4')).toEqual({ correct: true, extracted: '(25+3)*4' });
    expect(countdown.verify(problem, 'A:4*(3+25)').correct).toBe(true);
    expect(countdown.verify(problem, 'A:(3+25)*4=112').correct).toBe(true);
    expect(countdown.verify(problem, 'A:25*4+3*4')).toMatchObject({
      correct: false,
      reason: 'uses 4 more often than given',
    });
    // 7/2*2 = 7 in exact arithmetic: an expression with a non-integer step still counts if its value is exact
    expect(countdown.verify(instance([7, 2, 2], 7), 'A:7/2*2').correct).toBe(true);
  });

  it('rejects reused, missing, foreign numbers and non-exact division', () => {
    expect(countdown.verify(problem, 'A:(25+3)*4*1')).toMatchObject({
      reason: 'uses 1, which is not a given number',
    });
    expect(countdown.verify(problem, 'A:25*4+3')).toMatchObject({
      correct: false,
      reason: 'expression equals 103, not the target',
    });
    expect(countdown.verify(problem, 'A:25*4')).toMatchObject({
      correct: false,
      reason: 'does not use 3 (each number must be used exactly once)',
    });
    const division = instance([7, 2, 1], 3);
    // 7/2 is 3.5, not 3: no integer (floor) division
    expect(countdown.verify(division, 'A:7/2*1')).toMatchObject({
      correct: false,
      reason: 'expression equals 7/2, not the target',
    });
    expect(countdown.verify(division, 'A:(7-1)/2').correct).toBe(true);
    expect(countdown.verify(problem, 'A:(25+3)*4=113')).toMatchObject({ correct: false });
    expect(countdown.verify(instance([4, 2, 2], 1), 'A:4/(2-2)')).toMatchObject({
      reason: 'division by zero',
    });
  });

  it('reads numbers from metadata and writes integral steps ending at the target', () => {
    const rng = new Rng(4);
    for (let i = 0; i < 300; i++) {
      const generated = countdown.generate(rng, 6);
      const { numbers, target } = generated.metadata as { numbers: number[]; target: number };
      expect(countdownInstance(generated)).toEqual({ numbers, target });
      expect(generated.prompt).toBe(`make ${target}:${numbers.join(',')}\n`);
      const lines = generated.solution.split('\n');
      expect(lines).toHaveLength(6);
      expect(lines[4].endsWith(`=${target}`)).toBe(true);
      for (const line of lines.slice(0, 5)) expect(line).toMatch(/^\d+[-+*/]\d+=\d+$/);
      expect(target).toBeGreaterThanOrEqual(1);
      expect(target).toBeLessThanOrEqual(999);
    }
  });
});
