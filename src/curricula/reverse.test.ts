import { describe, expect, it } from 'vitest';
import { ConfigError } from '../core/errors.ts';
import { Rng } from '../core/rng.ts';
import { outcome, testProblem } from '../testing/curricula/test-pool.ts';
import { createReverse, solutionSteps } from './reverse.ts';

describe('reverse', () => {
  const problem = testProblem('q1', {
    prompt: 'What is 2+3?',
    solution: 'Start with 2.\n\nAdd 3.\nThe answer is 5.',
  });

  it('splits the solution on newlines, dropping blank steps', () => {
    expect(solutionSteps(problem.solution, '\n')).toEqual(['Start with 2.', 'Add 3.', 'The answer is 5.']);
  });

  it('starts from the last step and slides back as the group succeeds', () => {
    const selector = createReverse([problem], {});
    const rng = new Rng(1);
    const [late] = selector.select(1, rng);
    expect(late.id).toBe('q1#r2');
    expect(late.prompt).toBe('What is 2+3?\n### Response: Start with 2.\nAdd 3.');
    expect(late.solution).toBe('The answer is 5.');
    expect(late.metadata).toMatchObject({ reverseOf: 'q1', revealedSteps: 2, totalSteps: 3 });
    selector.observe(0, [outcome(late, [1, 0, 0, 0])]); // 25% < 50%: stay
    expect(selector.select(1, rng)[0].id).toBe('q1#r2');
    selector.observe(1, [outcome(late, [1, 1, 0, 0])]); // 50%: one step back
    const [middle] = selector.select(1, rng);
    expect(middle.id).toBe('q1#r1');
    selector.observe(2, [outcome(middle, [1, 1, 1, 1])]);
    const [bare] = selector.select(1, rng);
    expect(bare.id).toBe('q1#r0');
    expect(bare.prompt).toBe('What is 2+3?');
    expect(selector.metrics()['curriculum/bare_question_share']).toBe(1);
  });

  it('fails at construction when a problem has no solution', () => {
    expect(() => createReverse([problem, testProblem('q2', { solution: '' })], {})).toThrow(ConfigError);
    expect(() => createReverse([testProblem('q2', { solution: ' \n ' })], {})).toThrow(
      /reverse.*'solution'.*'q2'/,
    );
  });
});
