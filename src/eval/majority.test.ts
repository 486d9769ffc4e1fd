import { describe, expect, it } from 'vitest';
import { ConfigError } from '../core/errors.ts';
import { majorityAtK, majorityAtKCurve, majorityVote } from './majority.ts';

const answers = ['4', '5', '4', null, '5', '5'];
const correct = [false, true, false, false, true, true];

describe('majority vote', () => {
  it('picks the most frequent answer among the first k', () => {
    expect(majorityVote(answers.slice(0, 3))).toEqual({ answer: '4', index: 0, votes: 2 });
    expect(majorityVote(answers)).toEqual({ answer: '5', index: 1, votes: 3 });
    expect(majorityAtK(answers, correct, 3)).toBe(0);
    expect(majorityAtK(answers, correct, 6)).toBe(1);
  });

  it('breaks ties toward the answer seen first; nulls abstain', () => {
    expect(majorityVote(['5', '4', '4', '5'])).toEqual({ answer: '5', index: 0, votes: 2 });
    expect(majorityAtK(answers, correct, 2)).toBe(0); // '4' vs '5' tie → '4' (first), wrong
    expect(majorityVote([null, null])).toEqual({ answer: null, index: -1, votes: 0 });
    expect(majorityAtK([null, '7'], [false, true], 1)).toBe(0);
  });

  it('groups answers by a pluggable key', () => {
    const key = (answer: string) => String(Number(answer));
    expect(majorityVote(['0.50', '1', '.5'], { key })).toEqual({ answer: '0.50', index: 0, votes: 2 });
    expect(majorityVote(['0.50', '1', '.5'])).toEqual({ answer: '0.50', index: 0, votes: 1 });
  });

  it('reports every power-of-two k: k=1 → "4" wrong, k=2 → tie to "4" wrong, k=4 → "4" (2 votes) wrong', () => {
    expect(majorityAtKCurve(answers, correct)).toEqual({ 1: 0, 2: 0, 4: 0 });
    expect(majorityAtKCurve(['5', '4', '5', '4'], [true, false, true, false])).toEqual({ 1: 1, 2: 1, 4: 1 });
  });

  it('rejects k outside 1..n and mismatched flags', () => {
    expect(() => majorityAtK(answers, correct, 7)).toThrow(ConfigError);
    expect(() => majorityAtK(answers, correct.slice(1), 1)).toThrow(RangeError);
  });
});
