// next-token (RPT prefix matching at word boundaries) and next-segment (exact match after normalisation)
// on hand-made cases, and on real text-corpus problems.
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../core/errors.ts';
import type { Problem } from '../core/problem.ts';
import { Rng } from '../core/rng.ts';
import { createTextCorpusTask } from '../tasks/text-corpus.ts';
import { rewards } from './index.ts';

const problem = (answer: string, continuation?: string): Problem => ({
  id: 'p',
  task: 'text-corpus',
  prompt: 'The fox sees\n',
  answer,
  solution: `>x\nA:${answer}`,
  category: 'text-corpus',
  difficulty: 1,
  params: {},
  ...(continuation === undefined ? {} : { metadata: { continuation } }),
});

const score = async (name: string, p: Problem, completions: string[], options?: object) =>
  (
    await rewards
      .get(name)(options)
      .score(completions.map((completion) => ({ problem: p, completion })))
  ).map((r) => r.reward);

describe('next-token (RPT)', () => {
  it('pays a prediction that is a prefix of the continuation ending on a word boundary', async () => {
    const p = problem('a', 'a red box near the river.');
    expect(
      await score('next-token', p, [
        'think\nA:a',
        'A:a red',
        'A: a red box ',
        'A:a re',
        'A:ared',
        'A:red',
        'no answer',
        'A:a red box near the river.',
        'A:a red box near the river. and more',
      ]),
    ).toEqual([1, 1, 1, 0, 0, 0, 0, 1, 0]);
  });

  it("match 'exact' pays only the single next word; without metadata the answer is the continuation", async () => {
    const p = problem('a', 'a red box');
    expect(await score('next-token', p, ['A:a', 'A:a red'], { match: 'exact' })).toEqual([1, 0]);
    expect(await score('next-token', problem('red'), ['A:red', 'A:re', 'A:red box'])).toEqual([1, 0, 0]);
    expect(() => rewards.get('next-token')({ match: 'judge' })).toThrow(ConfigError);
  });

  it('grades real text-corpus worked solutions as correct and other problems’ answers as wrong', async () => {
    const task = createTextCorpusTask({});
    for (let seed = 0; seed < 30; seed++) {
      const p = task.generate(new Rng(seed), 1);
      expect(await score('next-token', p, [p.solution])).toEqual([1]);
    }
  });
});

describe('next-segment (RLPT, exact match)', () => {
  it('matches after trimming and collapsing whitespace, case-sensitive unless told', async () => {
    const p = problem('The old dog keeps the map.');
    expect(
      await score('next-segment', p, [
        'A:The old dog keeps the map.',
        'step\nA:  The old   dog keeps\tthe map.  ',
        'A:the old dog keeps the map.',
        'A:The old dog keeps the map',
        'A:The old dog',
        '',
      ]),
    ).toEqual([1, 1, 0, 0, 0, 0]);
    expect(
      await score('next-segment', p, ['A:the OLD dog keeps the map.'], { caseSensitive: false }),
    ).toEqual([1]);
    expect(() => rewards.get('next-segment')({ grader: 'model' })).toThrow(ConfigError);
  });

  it('grades real text-corpus line cuts (including a target that is itself an A: line)', async () => {
    const task = createTextCorpusTask({});
    let answerLines = 0;
    for (let seed = 0; seed < 60; seed++) {
      const p = task.generate(new Rng(seed), 2);
      if (p.answer.startsWith('A:')) answerLines++;
      expect(await score('next-segment', p, [p.solution, 'A:nothing like it'])).toEqual([1, 0]);
    }
    expect(answerLines).toBeGreaterThan(0);
  });
});
