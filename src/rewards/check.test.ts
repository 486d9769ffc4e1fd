import { describe, expect, it } from 'vitest';
import { DataError } from '../core/errors.ts';
import { additionProblem } from '../testing/rewards/test-problems.ts';
import { checkRewardCases, formatCheckedCase, formatCheckSummary, parseRewardCases } from './check.ts';

const lines = (...objects: unknown[]) => objects.map((object) => JSON.stringify(object)).join('\n');

describe('reward cases file', () => {
  it('gold → a minimal problem; problem → the full one; expected booleans are 1/0', () => {
    const problem = additionProblem('5', 'addition-1-abc');
    const cases = parseRewardCases(
      `${lines(
        { gold: '7', prediction: 'A:7', task: 'addition', expected: true },
        { problem, prediction: 'A:4', expected: 0, step: 3 },
      )}\n\n`,
      'cases.jsonl',
    );
    expect(cases).toHaveLength(2);
    expect(cases[0]).toEqual({
      line: 1,
      problem: {
        id: 'cases.jsonl:1',
        task: 'addition',
        prompt: '',
        answer: '7',
        solution: '',
        category: 'addition',
        difficulty: 0,
        params: {},
      },
      prediction: 'A:7',
      expected: 1,
    });
    expect(cases[1]).toMatchObject({ line: 2, problem, expected: 0, step: 3 });
  });

  it.each([
    ['{"gold": "1", "prediction": 2}', "cases.jsonl:2: field 'prediction'"],
    ['{"gold": "1"', 'cases.jsonl:2: bad JSON'],
    ['[1]', 'cases.jsonl:2: expected a JSON object'],
    ['{"prediction": "1"}', "cases.jsonl:2: give exactly one of 'gold'"],
    ['{"gold": "1", "problem": {}, "prediction": "1"}', "cases.jsonl:2: give exactly one of 'gold'"],
    ['{"problem": {"id": "x"}, "prediction": "1"}', 'cases.jsonl:2: problem: '],
    ['{"gold": "1", "prediction": "1", "expect": 1}', 'cases.jsonl:2: '],
  ])('malformed line %s → DataError naming file:line', (bad, message) => {
    const text = `${lines({ gold: '1', prediction: '1' })}\n${bad}`;
    expect(() => parseRewardCases(text, 'cases.jsonl')).toThrow(DataError);
    expect(() => parseRewardCases(text, 'cases.jsonl')).toThrow(message);
  });

  it('scores, compares with expected and summarises', async () => {
    const cases = parseRewardCases(
      lines(
        { gold: '5', task: 'addition', prediction: '2+3\nA:5', expected: 1 },
        { gold: '5', task: 'addition', prediction: 'A:6', expected: 0 },
        { gold: '5', task: 'addition', prediction: 'A:5', expected: 0 },
        { gold: '5', task: 'addition', prediction: 'five' },
      ),
      'cases.jsonl',
    );
    const { results, summary } = await checkRewardCases('verifier', {}, cases);
    expect(results.map((result) => result.reward)).toEqual([1, 0, 1, 0]);
    expect(results.map((result) => result.agrees)).toEqual([true, true, false, undefined]);
    expect(summary).toMatchObject({
      reward: 'verifier',
      count: 4,
      meanReward: 0.5,
      withExpected: 3,
      agreements: 2,
      agreement: 2 / 3,
    });
    expect(formatCheckedCase('cases.jsonl', results[1])).toBe(
      "cases.jsonl:2  reward 0  expected 0 ok  correct=0  (answer '6' is wrong)",
    );
    expect(formatCheckedCase('cases.jsonl', results[2])).toContain('expected 0 DISAGREES');
    expect(formatCheckSummary(summary)).toMatch(
      /^verifier: 4 cases {2}mean reward 0\.5000 {2}agreement 2\/3 \(66\.7%\)/,
    );
  });
});
