// The leakage guard against adversarial hints: the answer at the end, as the tail of a longer number, with
// separators, signed, in a non-numeric task; and on every prefix of real worked solutions.
import { describe, expect, it } from 'vitest';
import type { Problem } from '../core/problem.ts';
import { Rng } from '../core/rng.ts';
import { addition, additionProblem } from '../tasks/addition.ts';
import { tasks } from '../tasks/index.ts';
import { modularChain } from '../tasks/modular-chain.ts';
import { stringCompose } from '../tasks/string-compose.ts';
import { answerPrefix } from '../tasks/task.ts';
import { answerPosition, guardAgainstAnswer } from './leakage.ts';
import { solutionPrefix } from './worked-solution.ts';

describe('guardAgainstAnswer', () => {
  it('cuts a hint back to just before the answer', () => {
    expect(guardAgainstAnswer('8+7+0=15\n5+6+1=12\n7+0+1=08\nA:825', '825')).toMatchObject({
      text: '8+7+0=15\n5+6+1=12\n7+0+1=08\nA:',
      violated: true,
    });
  });

  it('finds the answer as the tail of a longer number, cutting at the start of that number', () => {
    expect(guardAgainstAnswer('carry gives 1825 here', '825')).toMatchObject({
      text: 'carry gives ',
      violated: true,
    });
    // A column sum "05" is the answer 5.
    expect(guardAgainstAnswer('2+3+0=05\nA:5', '5', { prompt: '2+3\n' })).toMatchObject({
      text: '2+3+0=',
      violated: true,
    });
  });

  it('finds the answer written with separators between its digits', () => {
    for (const written of ['8,25', '8_25', "8'25", '8 25', '8\u200925', '-825', '+825']) {
      expect(guardAgainstAnswer(`so the sum is ${written}.`, '825'), written).toMatchObject({
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

  it('no worked-solution prefix reaches into the answer line, at any fraction, for any task', () => {
    const rng = new Rng(9);
    for (const name of tasks.names()) {
      const task = tasks.get(name);
      let checked = 0;
      for (let i = 0; i < 20; i++) {
        let problem: Problem;
        try {
          const { min, max } = task.difficulty;
          problem = task.generate(rng, min + (i % (max - min + 1)));
        } catch {
          continue; // a task that needs options (a corpus file) to generate
        }
        if (!problem.solution.includes(answerPrefix)) continue;
        checked++;
        for (let p = 0; p <= 1.0001; p += 0.01) {
          const prefix = solutionPrefix(problem, Math.min(p, 1));
          expect(
            prefix.includes(`\n${answerPrefix}`) || prefix.startsWith(answerPrefix),
            `${name} p ${p}`,
          ).toBe(false);
        }
      }
      if (['addition', 'countdown', 'modular-chain', 'string-compose'].includes(name))
        expect(checked, name).toBe(20);
    }
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
