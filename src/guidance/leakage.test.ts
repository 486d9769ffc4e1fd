// The leakage guard against adversarial hints: the answer at the end, as the tail of a longer number, with
// separators, signed, in a non-numeric task; and on every prefix of real worked solutions.
import { describe, expect, it } from 'vitest';
import { Rng } from '../core/rng.ts';
import { addition, additionProblem } from '../tasks/addition.ts';
import { modularChain } from '../tasks/modular-chain.ts';
import { stringCompose } from '../tasks/string-compose.ts';
import { answerPosition, guardAgainstAnswer } from './leakage.ts';

describe('guardAgainstAnswer', () => {
  it('cuts a hint back to just before the answer', () => {
    expect(guardAgainstAnswer('8+7+0=15\n5+6+1=12\n7+0+1=08\nA:825', '825')).toEqual({
      text: '8+7+0=15\n5+6+1=12\n7+0+1=08\nA:',
      violated: true,
    });
  });

  it('finds the answer as the tail of a longer number, cutting at the start of that number', () => {
    expect(guardAgainstAnswer('carry gives 1825 here', '825')).toEqual({
      text: 'carry gives ',
      violated: true,
    });
    // A column sum "05" is the answer 5.
    expect(guardAgainstAnswer('2+3+0=05\nA:5', '5')).toEqual({ text: '2+3+0=', violated: true });
  });

  it('finds the answer written with separators between its digits', () => {
    for (const written of ['8,25', '8_25', "8'25", '8 25', '8\u200925', '-825', '+825']) {
      expect(guardAgainstAnswer(`so the sum is ${written}.`, '825'), written).toEqual({
        text: `so the sum is ${/^[-+]/.test(written) ? written[0] : ''}`,
        violated: true,
      });
    }
  });

  it('leaves text without the answer alone, including the answer at the head of a longer number', () => {
    expect(guardAgainstAnswer('8+7+0=15\n5+6+1=12', '825')).toEqual({
      text: '8+7+0=15\n5+6+1=12',
      violated: false,
    });
    expect(answerPosition('8250 and 82+5x', '825')).toBe(-1);
    expect(answerPosition('anything', '')).toBe(-1);
  });

  it('finds a non-numeric answer, whitespace allowed between its characters', () => {
    expect(guardAgainstAnswer('rev:dcba\nswp:cdab\ninc:debc\nA:debc', 'debc').text).toBe(
      'rev:dcba\nswp:cdab\ninc:',
    );
    expect(guardAgainstAnswer('so: d e b c', 'debc').text).toBe('so: ');
    expect(guardAgainstAnswer('x(25+3)*4', '(25+3)*4').text).toBe('x');
  });

  it('no prefix of a real worked solution keeps the answer after the guard (addition, modular-chain, string-compose)', () => {
    const rng = new Rng(5);
    const problems = [
      ...[1, 2, 3, 5, 8].map((level) => addition.generate(rng, level)),
      additionProblem('7', '8'),
      ...[1, 3, 5].map((level) => modularChain.generate(rng, level)),
      ...[1, 3].map((level) => stringCompose.generate(rng, level)),
    ];
    for (const problem of problems) {
      for (let end = 0; end <= problem.solution.length; end++) {
        const guarded = guardAgainstAnswer(problem.solution.slice(0, end), problem.answer);
        expect(answerPosition(guarded.text, problem.answer), `${problem.id} prefix ${end}`).toBe(-1);
      }
      // The whole solution always states the answer: the guard must fire on it.
      expect(guardAgainstAnswer(problem.solution, problem.answer).violated, problem.id).toBe(true);
    }
  });
});
