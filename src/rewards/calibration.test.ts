import { afterAll, describe, expect, it } from 'vitest';
import type { Reward } from '../core/reward.ts';
import { additionProblem, mathProblem } from '../testing/rewards/test-problems.ts';
import { parseConfidence, parseRlcrOutput, rlcrReward, statedConfidence } from './calibration.ts';
import { rewards } from './index.ts';

const tabc = (answer: string, confidence: string) =>
  `<think>2+3 is 5</think>\n<answer>${answer}</answer>\n<analysis>a one-digit sum</analysis>\n<confidence>${confidence}</confidence>`;

const opened: Reward[] = [];
async function score(options: unknown, completion: string, problem = additionProblem('5')) {
  const reward = rewards.get('calibration')(options);
  opened.push(reward);
  const [result] = await reward.score([{ problem, completion }]);
  return result;
}

afterAll(async () => {
  await Promise.all(opened.map((reward) => reward.close?.()));
});

describe('RLCR confidence parsing (the authors: float(last <confidence>), 0 ≤ q ≤ 1)', () => {
  it.each([
    [' 0.5 ', 0.5],
    ['1', 1],
    ['0', 0],
    ['.25', 0.25],
    ['+0.3', 0.3],
    ['1e-1', 0.1],
    ['0.0_5', 0.05],
    ['80', null],
    ['1.01', null],
    ['-0.1', null],
    ['80%', null],
    ['high', null],
    ['nan', null],
    ['inf', null],
    ['', null],
    ['0.5 0.6', null],
  ])('%j → %s', (text, expected) => {
    expect(parseConfidence(text)).toBe(expected);
  });

  it('takes the last answer and the last confidence', () => {
    const output = parseRlcrOutput(
      '<think>first <answer>4</answer> <confidence>0.1</confidence></think><answer>5</answer><analysis>a</analysis><confidence>0.6</confidence>',
    );
    expect(output).toEqual({ format: 1, answer: '5', confidence: 0.6, problem: null });
  });
});

describe('RLCR reward terms by hand: 0.5·f + 0.5·c + 0.5·(1 − (c − q)²)', () => {
  it.each([
    // [f, c, q, authors, paper = c − (q − c)²]
    [1, 1, 0.8, 0.5 + 0.5 + 0.5 * 0.96, 0.96],
    [1, 0, 0.8, 0.5 + 0 + 0.5 * 0.36, -0.64],
    [1, 0, 0.1, 0.5 + 0.5 * 0.99, -0.01],
    [1, 1, 1, 1.5, 1],
    [1, 1, 0, 1, 0],
    [1, 0, 0, 1, 0],
    [0, 1, 0.9, 0, -2],
  ] as const)('f=%d c=%d q=%d', (f, c, q, authors, paper) => {
    expect(rlcrReward(f, c, q).reward).toBeCloseTo(authors, 12);
    expect(rlcrReward(f, c, q, 'paper').reward).toBeCloseTo(paper, 12);
  });
});

describe('calibration reward (wrapping the task verifier)', () => {
  it('correct and confident: 0.5 + 0.5 + 0.5·(1 − 0.2²) = 1.48', async () => {
    const result = await score({}, tabc('5', '0.8'));
    expect(result.reward).toBeCloseTo(1.48, 12);
    expect(result.components).toEqual({
      format: 1,
      correct: 1,
      confidence: 0.8,
      brier: expect.closeTo(0.96, 12),
    });
  });

  it('wrong but confident: 0.5 + 0 + 0.5·(1 − 0.8²) = 0.68; wrong and unsure: 0.995', async () => {
    const confident = await score({}, tabc('6', '0.8'));
    expect(confident.reward).toBeCloseTo(0.68, 12);
    expect(confident.components.correct).toBe(0);
    expect(confident.reason).toBe("answer '6' is wrong");
    expect((await score({}, tabc('6', '0.1'))).reward).toBeCloseTo(0.995, 12);
  });

  it("scale 'paper': c − (q − c)²", async () => {
    expect((await score({ scale: 'paper' }, tabc('5', '0.8'))).reward).toBeCloseTo(0.96, 12);
    expect((await score({ scale: 'paper' }, tabc('6', '0.8'))).reward).toBeCloseTo(-0.64, 12);
    expect((await score({ scale: 'paper' }, tabc('5', 'high'))).reward).toBe(-2);
  });

  it('missing or unparseable confidence: format 0, everything 0 (as the authors)', async () => {
    const cases: [string, string][] = [
      ['<think>t</think><answer>5</answer><analysis>sure</analysis>', 'format: missing <confidence>'],
      [tabc('5', 'high'), "format: confidence 'high' is not a number"],
      [tabc('5', '80'), 'format: confidence 80 outside [0, 1]'],
      [tabc('5', ' '), 'format: empty <confidence>'],
      [`${tabc('5', '0.9')} thanks!`, 'format: text after </confidence>'],
      ['<answer>5</answer><analysis>a</analysis><confidence>0.9</confidence>', 'format: missing </think>'],
      ['<think>t</think><answer>5</answer><confidence>0.9</confidence>', 'format: missing <analysis>'],
    ];
    for (const [completion, reason] of cases) {
      const result = await score({}, completion);
      expect(result.reward).toBe(0);
      expect(result.components).toEqual({ format: 0, correct: 0, brier: 0 });
      expect(result.reason).toBe(reason);
    }
  });

  it('<think> may be prefilled; an answer given as an A: line is kept', async () => {
    const noOpen = 'so 5</think><answer>5</answer><analysis>a</analysis><confidence>1</confidence>';
    expect((await score({}, noOpen)).reward).toBeCloseTo(1.5, 12);
    expect((await score({}, tabc('\nA:5\n', '1'))).reward).toBeCloseTo(1.5, 12);
  });

  it('wraps math-answer: 0.5 ≡ 1/2 with q = 0.9 → 0.5 + 0.5 + 0.5·0.99 = 1.495', async () => {
    const reward = rewards.get('calibration')({ reward: 'math-answer', rewardOptions: { poolSize: 1 } });
    opened.push(reward);
    const problem = mathProblem('\\frac{1}{2}');
    const [right, wrong] = await reward.score([
      { problem, completion: tabc('0.5', '0.9') },
      { problem, completion: tabc('0.25', '0.3') },
    ]);
    expect(right.reward).toBeCloseTo(1.495, 12);
    expect(wrong.reward).toBeCloseTo(0.5 + 0.5 * (1 - 0.09), 12);
  });

  it('bad options are ConfigErrors; unknown inner rewards list the known ones', () => {
    expect(() => rewards.get('calibration')({ scale: 'other' })).toThrow(/scale/);
    expect(() => rewards.get('calibration')({ reward: 'nope' })).toThrow(/unknown reward 'nope'; known:/);
  });
});

describe("format 'answer-line': the embedded model's compact form `…\\nA:<answer>\\nC:<q>`", () => {
  const options = { format: 'answer-line' };
  it.each([
    // [completion, f, c, q]: reward = 0.5·f + 0.5·c + 0.5·(1 − (c − q)²) as for tabc
    ['2+3=05\nA:5\nC:0.8', 1, 1, 0.8],
    ['2+3=05\nA:6\nC:0.8', 1, 0, 0.8],
    ['A:5\nC:1.0\n', 1, 1, 1],
    ['2+3=05\nA:4\nC:0.1', 1, 0, 0.1],
  ])('%j → f %d, c %d, q %s', async (completion, f, c, q) => {
    const result = await score(options, completion);
    expect(result.components).toEqual({ format: f, correct: c, confidence: q, brier: 1 - (c - q) ** 2 });
    expect(result.reward).toBeCloseTo(0.5 * f + 0.5 * c + 0.5 * (1 - (c - q) ** 2), 12);
  });

  it.each([
    ['2+3=05\nA:5', 'does not end with an A:<answer> line and a C:<confidence> line'],
    ['2+3=05\nC:0.5\nA:5', 'does not end with an A:<answer> line and a C:<confidence> line'],
    ['A:5\nC:0.5\nmore', 'does not end with an A:<answer> line and a C:<confidence> line'],
    ['A:5\nC:', 'empty C: line'],
    ['A:5\nC:high', "confidence 'high' is not a number"],
    ['A:5\nC:80', 'confidence 80 outside [0, 1]'],
  ])('%j has format 0: %s', async (completion, problem) => {
    const result = await score(options, completion);
    expect(result).toMatchObject({ reward: 0, components: { format: 0, correct: 0, brier: 0 } });
    expect(result.reason).toBe(`format: ${problem}`);
  });

  it('grades without the confidence line (math-answer would read its number as the answer)', async () => {
    const math = { format: 'answer-line', reward: 'math-answer' };
    expect((await score(math, '\\boxed{5}\nA:5\nC:0.5', mathProblem('5'))).components.correct).toBe(1);
    expect((await score(math, 'A:4\nC:0.5', mathProblem('0.5'))).components.correct).toBe(0);
    // the tabc default refuses the compact form
    expect((await score({}, '2+3=05\nA:5\nC:0.8')).components.format).toBe(0);
  });

  it('the evaluation reads the same confidence (statedConfidence), tags first', () => {
    expect(statedConfidence('2+3=05\nA:5\nC:0.3')).toBe(0.3);
    expect(statedConfidence('2+3=05\nA:5')).toBeNull();
    expect(statedConfidence('A:5\nC:2')).toBeNull();
    expect(statedConfidence('A:5\nC:0.3\n<confidence>0.9</confidence>')).toBe(0.9);
  });
});
