import { describe, expect, it } from 'vitest';
import { ConfigError } from '../core/errors.ts';
import { additionProblem } from '../testing/rewards/test-problems.ts';
import { rewards } from './index.ts';

async function score(options: unknown, completion: string) {
  const [result] = await rewards
    .get('format')(options)
    .score([{ problem: additionProblem(), completion }]);
  return result;
}

describe('format reward', () => {
  it.each([
    ['<think>2+3</think><answer>5</answer>', null],
    [' <think>\n2+3\n</think>\n<answer>\n5\n</answer>\n', null],
    ['<think>a</think>b</think><answer>5</answer>', null],
    ['<think></think><answer></answer>', null],
    ['5', 'format: missing <think>'],
    ['<think>2+3</think>', 'format: missing <answer>'],
    ['<think>2+3<answer>5</answer>', 'format: missing </think>'],
    ['<think>2+3</think><answer>5', 'format: missing </answer>'],
    ['Sure! <think>2+3</think><answer>5</answer>', 'format: text before <think>'],
    ['<think>2+3</think> so <answer>5</answer>', 'format: text between </think> and <answer>'],
    ['<think>2+3</think><answer>5</answer> done', 'format: text after </answer>'],
  ])('think-answer: %j', async (completion, reason) => {
    const result = await score({}, completion);
    expect(result.reward).toBe(reason === null ? 1 : 0);
    expect(result.components).toEqual({ format: reason === null ? 1 : 0 });
    expect(result.reason).toBe(reason ?? undefined);
  });

  it('prefilled <think>', async () => {
    expect((await score({ prefilledThink: true }, '2+3</think><answer>5</answer>')).reward).toBe(1);
    expect((await score({}, '2+3</think><answer>5</answer>')).reason).toBe('format: missing <think>');
    expect((await score({ prefilledThink: true }, '2+3<answer>5</answer>')).reason).toBe(
      'format: missing </think>',
    );
  });

  it('answer line', async () => {
    expect((await score({ pattern: 'answer-line' }, '2+3=5\nA:5')).reward).toBe(1);
    expect((await score({ pattern: 'answer-line' }, 'A:5\nthat is all')).reward).toBe(1);
    const missing = await score({ pattern: 'answer-line' }, 'the answer is 5');
    expect(missing.reward).toBe(0);
    expect(missing.reason).toBe('format: no answer line (A:<answer>) found');
    expect((await score({ pattern: 'answer-line' }, 'x\nA:  ')).reward).toBe(0);
    expect((await score({ pattern: 'answer-line' }, 'xA:5')).reward).toBe(0);
  });

  it('user regex, flags, pass/fail values', async () => {
    expect((await score({ regex: '^\\d+$' }, '42')).reward).toBe(1);
    const bad = await score({ regex: '^\\d+$', pass: 1, fail: -1 }, '42x');
    expect(bad.reward).toBe(-1);
    expect(bad.reason).toBe('format: does not match /^\\d+$/');
    expect((await score({ regex: 'final answer', flags: 'i' }, 'FINAL ANSWER: 3')).reward).toBe(1);
    expect((await score({ pattern: 'regex', regex: '^a.b$', flags: 's' }, 'a\nb')).reward).toBe(1);
    expect((await score({ pattern: 'regex', regex: '^a.b$' }, 'a\nb')).reward).toBe(0);
  });

  it('rlcr pattern', async () => {
    const ok = '<think>t</think><answer>5</answer><analysis>a</analysis><confidence>0.7</confidence>';
    expect((await score({ pattern: 'rlcr' }, ok)).reward).toBe(1);
    expect((await score({ pattern: 'rlcr' }, ok.replace('0.7', '70'))).reason).toBe(
      'format: confidence 70 outside [0, 1]',
    );
  });

  it('bad options are ConfigErrors', () => {
    const make = (options: unknown) => () => rewards.get('format')(options);
    expect(make({ pattern: 'regex' })).toThrow(ConfigError);
    expect(make({ regex: '(' })).toThrow(/regex/);
    expect(make({ regex: 'a', flags: 'g' })).toThrow(ConfigError);
    expect(make({ pattern: 'answer-line', regex: 'a' })).toThrow(ConfigError);
    expect(make({ patern: 'rlcr' })).toThrow(/unknown key 'patern'/);
  });
});
