// Tests of the math-answer reward: the table of cases in cases.ts (in-thread, Math-Verify v0.8.0 / Qwen
// math_equal categories plus their known traps), then the worker-pool path: batch scoring, gold-unparseable
// reporting, the echo rule, timeouts with pathological inputs, registry options and the exported helpers.
import { afterAll, describe, expect, it } from 'vitest';
import { benchMix } from '../../bench/math-answer-bench.ts';
import { ConfigError } from '../../core/errors.ts';
import type { Problem } from '../../core/problem.ts';
import { type MathCase, mathCases } from '../../testing/rewards/math-answer/cases.ts';
import { echoCases } from '../../testing/rewards/math-answer/echo-cases.ts';
import { rewards } from '../index.ts';
import { extractAnswer } from './extract.ts';
import {
  closeSharedMathVerifier,
  MathAnswerReward,
  mathAnswerKey,
  mathEquivalent,
  parseMathAnswerOptions,
  verifyMath,
} from './reward.ts';
import { verifySync } from './verify.ts';

const problem = (answer: string, id = `p-${answer}`, prompt = 'Compute it.'): Problem => ({
  id,
  task: 'math',
  prompt,
  answer,
  solution: '',
  category: 'math',
  difficulty: 1,
  params: {},
});

const label = (k: MathCase) => `${k.category}: gold ${k.gold} | ${k.completion} → ${k.expected}`;

describe('math-answer cases (in-thread)', () => {
  it('has at least 200 cases with both outcomes in every category', () => {
    const all = [...mathCases, ...echoCases];
    expect(all.length).toBeGreaterThanOrEqual(200);
    const categories = new Set(all.map((k) => k.category));
    expect(categories.size).toBeGreaterThanOrEqual(15);
    expect(all.filter((k) => k.expected === 0).length).toBeGreaterThan(60);
  });

  it.each([...mathCases, ...echoCases].map((k) => [label(k), k] as const))('%s', (_, k) => {
    const verdict = verifySync(k.gold, k.completion, { question: k.question });
    expect(Number(verdict.correct), JSON.stringify(verdict)).toBe(k.expected);
    if (k.expected === 0 && k.reason) expect(verdict.reason).toContain(k.reason);
    if (k.expected === 0) expect(verdict.reason).toBeTruthy();
  });

  it('is deterministic (seeded random points)', () => {
    const first = mathCases.map((k) => verifySync(k.gold, k.completion).correct);
    const second = mathCases.map((k) => verifySync(k.gold, k.completion).correct);
    expect(second).toEqual(first);
  });

  it('boxedOnly refuses unboxed answers', () => {
    expect(verifySync('12', 'The final answer is 12.', { boxedOnly: true }).reason).toBe('no answer found');
    expect(verifySync('12', 'so \\boxed{12}', { boxedOnly: true }).correct).toBe(true);
  });

  it('relTol widens or narrows the float rule', () => {
    expect(verifySync('\\pi', '\\boxed{3.1416}').correct).toBe(false);
    expect(verifySync('\\pi', '\\boxed{3.1416}', { relTol: 1e-4 }).correct).toBe(true);
  });

  it('benchmark mix is reproducible and gradeable in-thread', () => {
    const mix = benchMix(200, 3);
    expect(benchMix(200, 3)).toEqual(mix);
    const correct = mix.filter(
      (task) => task.kind === 'verify' && verifySync(task.gold, task.completion).correct,
    );
    // about 60% of the answered 90% are right
    expect(correct.length / mix.length).toBeGreaterThan(0.4);
    expect(correct.length / mix.length).toBeLessThan(0.7);
  });

  it('extracts by priority', () => {
    expect(extractAnswer('The final answer is 3. Answer: 4 \\boxed{5}')?.source).toBe('boxed');
    expect(extractAnswer('The final answer is $3$. Then 7')?.answer).toBe('3');
    expect(extractAnswer('so $x=2$ and then 9')?.answer).toBe('x=2');
    expect(extractAnswer('we got 9 apples')?.answer).toBe('9');
    expect(extractAnswer('\\boxed{1}, \\boxed{2}')?.answer).toBe('1, 2');
  });
});

describe('math-answer reward (worker pool)', () => {
  const warnings: string[] = [];
  const reward = new MathAnswerReward({ logger: (message) => warnings.push(message), poolSize: 2 });
  afterAll(async () => {
    await reward.close();
    await closeSharedMathVerifier();
  });

  it('scores a batch in workers with the same verdicts as in-thread', async () => {
    const sample = mathCases.filter((_, i) => i % 5 === 0);
    const results = await reward.score(
      sample.map((k) => ({ problem: problem(k.gold), completion: k.completion })),
    );
    expect(results.map((r) => r.reward)).toEqual(sample.map((k) => k.expected));
    for (const result of results) {
      expect(result.components).toEqual({ correct: result.reward });
      if (result.reward === 0) expect(result.reason).toBeTruthy();
      else expect(result.reason).toBeUndefined();
    }
  });

  it('reports an unparseable gold once per problem id, not as the model being wrong', async () => {
    const bad = problem('\\frac{1}{', 'broken-1');
    const results = await reward.score([
      { problem: bad, completion: '\\boxed{1}' },
      { problem: bad, completion: '\\boxed{2}' },
      { problem: problem('\\frac{1}{', 'broken-2'), completion: '\\boxed{1}' },
    ]);
    expect(results.map((r) => r.reason)).toEqual([
      'gold unparseable',
      'gold unparseable',
      'gold unparseable',
    ]);
    expect(warnings.filter((w) => w.includes('broken-1'))).toHaveLength(1);
    expect(warnings.filter((w) => w.includes('broken-2'))).toHaveLength(1);
  });

  it('passes the problem prompt to the echo rule (the reward as registered)', async () => {
    const registered = rewards.get('math-answer')({ poolSize: 1 });
    try {
      const results = await registered.score([
        {
          problem: problem('[-3,7]', 'echo-1', 'Solve $-2 \\le x+1 \\le 8$.'),
          completion: '\\boxed{-2\\le x+1\\le 8}',
        },
        { problem: problem('120', 'echo-2', 'Compute C(10,3).'), completion: '\\boxed{\\binom{10}{3}}' },
        { problem: problem('391', 'echo-3', 'What is $17 \\cdot 23$?'), completion: '\\boxed{23\\times 17}' },
        { problem: problem('120', 'echo-4', 'Compute C(10,3).'), completion: '\\boxed{120}' },
        { problem: problem('7', 'echo-5', 'Ann has 3 pens and buys 4.'), completion: '\\boxed{3+4}' },
      ]);
      expect(results.map((r) => [r.reward, r.reason])).toEqual([
        [0, 'echo'],
        [0, 'echo'],
        [0, 'echo'],
        [1, undefined],
        [1, undefined],
      ]);
    } finally {
      await registered.close?.();
    }
  });

  it('times out pathological answers, replaces the worker and keeps scoring', async () => {
    const fast = new MathAnswerReward({ timeoutMs: 250, poolSize: 1, logger: () => {} });
    try {
      await fast.score([{ problem: problem('1'), completion: '\\boxed{1}' }]); // load the worker first
      // 600 factorials of 5000 (each ~54,000 bits) to add exactly: seconds of BigInt work, under 4,000 chars.
      const slow = `\\boxed{${Array.from({ length: 600 }, () => '5000!').join('+')}}`;
      const started = Date.now();
      const results = await fast.score([
        { problem: problem('1'), completion: slow },
        { problem: problem('1'), completion: '\\boxed{10^{10^{10}}}' },
        { problem: problem('120'), completion: '\\boxed{5!}' },
      ]);
      // 250 ms for the timeout plus a replacement worker's start-up (seconds on a loaded machine)
      expect(Date.now() - started).toBeLessThan(30_000);
      expect(results[0]).toEqual({ reward: 0, components: { correct: 0 }, reason: 'timeout' });
      expect(results[1].reward).toBe(0);
      expect(results[1].reason).toMatch(/^(timeout|error: )/);
      expect(results[2].reward).toBe(1);
      // Deep nesting may overflow compute-engine's recursive parser (depending on the stack left): an error
      // verdict then, never a crash; when it does parse, it is simply wrong (x ≠ y).
      const deep = `\\boxed{${'('.repeat(1900)}x${')'.repeat(1900)}}`;
      const [nested] = await fast.score([{ problem: problem('y'), completion: deep }]);
      expect(nested.reward).toBe(0);
      expect(nested.reason).toMatch(/^(timeout|error: |wrong: )/);
      const [after] = await fast.score([{ problem: problem('\\frac12'), completion: '\\boxed{0.5}' }]);
      expect(after.reward).toBe(1);
    } finally {
      await fast.close();
    }
  });

  it('is registered and validates its options', () => {
    const factory = rewards.get('math-answer');
    const made = factory({ relTol: 1e-4, boxedOnly: true });
    expect(made.name).toBe('math-answer');
    void made.close?.();
    expect(() => factory({ relTol: -1 })).toThrow(ConfigError);
    expect(() => factory({ tolerance: 1 })).toThrow(/allowed keys/);
    expect(parseMathAnswerOptions(undefined)).toEqual({
      relTol: 1e-6,
      timeoutMs: 2000,
      poolSize: 2,
      boxedOnly: false,
      roundedDigits: 6,
      setRelations: false,
      matchTypes: ['latex', 'expr'],
    });
    expect(() => factory({ matchTypes: [] })).toThrow(ConfigError);
    expect(() => factory({ matchTypes: ['boxed'] })).toThrow(ConfigError);
    expect(() => factory({ roundedDigits: 0 })).toThrow(ConfigError);
  });

  it('exports verifyMath, mathEquivalent and mathAnswerKey for other rewards (TTRL voting)', async () => {
    const options = { poolSize: 1 };
    expect(await verifyMath('\\frac12', 'so \\boxed{0.5}', options)).toEqual({
      correct: true,
      extracted: '0.5',
    });
    const wrong = await verifyMath('2', '\\boxed{3}', options);
    expect(wrong.correct).toBe(false);
    expect(wrong.reason).toBe('wrong: got 3');
    expect(await mathEquivalent('\\frac{1}{2}', '0.5', options)).toBe(true);
    expect(await mathEquivalent('x^2-1', '(x-1)(x+1)', options)).toBe(true);
    expect(await mathEquivalent('\\frac{1}{2}', '\\frac{1}{3}', options)).toBe(false);
    expect(await mathEquivalent('\\{1, 2\\}', '\\boxed{2, 1}', options)).toBe(true);
    expect(mathAnswerKey('thus \\boxed{\\dfrac{1}{2}}')).toBe(mathAnswerKey('\\boxed{\\frac{1}{2} }'));
    expect(mathAnswerKey('\\boxed{1{,}000}')).toBe('1000');
    expect(mathAnswerKey('I could not solve this problem, sorry.')).toBeNull();
  });
});

describe('percent words', () => {
  it("reads 'percentage' after a number as a percent marker", () => {
    expect(verifySync('$45\\%$', 'So the share is $\\boxed{45 percentage}$').correct).toBe(true);
    expect(verifySync('$45\\%$', 'So the share is $\\boxed{46 percentage}$').correct).toBe(false);
  });
});

describe('labelled ratios', () => {
  it('reads a ratio of names on the left of = as a label, not a ratio with a number', () => {
    expect(verifySync('$\\frac{PQ}{QR}=\\frac{2}{5}$', 'So $\\boxed{\\frac{2}{5}}$').correct).toBe(true);
    expect(verifySync('$\\frac{PQ}{QR}=\\frac{2}{5}$', 'So $\\boxed{\\frac{3}{5}}$').correct).toBe(false);
    expect(verifySync('$\\frac{y}{4}=3$', 'So $\\boxed{3}$').correct).toBe(false);
  });
});

describe('several boxed answers', () => {
  it('joins boxes separated only by inline-math delimiters, a period or "and"; prose still separates', () => {
    expect(verifySync('\\(\\boxed{2}\\) and \\(\\boxed{-5}\\).', '$\\boxed{-5, 2}$').correct).toBe(true);
    expect(verifySync('$-5, 2$', 'So \\(\\boxed{2}\\). \\(\\boxed{-5}\\)').correct).toBe(true);
    expect(verifySync('$-5, 2$', 'First \\boxed{2}, then we find \\boxed{-5}').correct).toBe(false);
  });
});

describe('relation chains over a function value, and boxes joined by a short text ending in "and"', () => {
  it('reads a < f(x) < b as the interval (a, b), but not a chain over 2x', () => {
    expect(verifySync('$2<g(t)<5$', '$(2,5)$').correct).toBe(true);
    expect(verifySync('$2<g(t)<5$', '$(2,6)$').correct).toBe(false);
    expect(verifySync('$0<2x<4$', '$(0,4)$').correct).toBe(false);
  });

  it('joins \\boxed{a} \\text{… and} \\boxed{b}; a text not ending in and/or still separates', () => {
    expect(verifySync('$4, 7$', '$\\boxed{4} \\text{ for the first and } \\boxed{7}$').correct).toBe(true);
    expect(verifySync('$7$', '$\\boxed{4} \\text{ is not it; the answer is } \\boxed{7}$').correct).toBe(
      true,
    );
  });
});

describe('a worked-solution gold without a box', () => {
  const gold =
    'Adding the two baskets gives $12 + 5$ pieces of fruit in all, and none were eaten on the way. Final Answer: The final answer is $17$. I hope it is correct.';
  it('is graded by its extracted answer, as a completion would be', () => {
    expect(verifySync(gold, 'So $\\boxed{17}$').correct).toBe(true);
    expect(verifySync(gold, 'So $\\boxed{12}$').correct).toBe(false);
  });
  it('a short gold that does not parse is still reported as unparseable', () => {
    expect(verifySync('$x = \\zzq{$', '$\\boxed{0}$').reason).toBe('gold unparseable');
  });
});

describe('final-answer prose and end-of-turn tokens', () => {
  it('takes the one number of a prose final answer over an earlier LaTeX step', () => {
    const completion = 'We get $x = 4 + 1 = 5$ bags. Final Answer: Maria bought 7 apples in total.';
    expect(verifySync('$7$', completion).correct).toBe(true);
    expect(verifySync('$5$', completion).correct).toBe(false);
  });
  it('ignores what follows an end-of-turn or turn-start token', () => {
    expect(
      verifySync('$12$', 'Final Answer: The final answer is 12. <|im_start|>user\nAnd 13?').correct,
    ).toBe(true);
    expect(verifySync('$12$', 'I am not sure.<|im_end|>\nThe answer is $\\boxed{12}$').correct).toBe(false);
  });
});

describe('a final-answer statement after the last box', () => {
  it('outranks a box on an intermediate step; a box after the statement still wins', () => {
    const completion =
      'First $\\boxed{40}$ for one part; with the rest, 40 + 25 = 65. Final Answer: The final answer is $65$.';
    expect(verifySync('$65$', completion).correct).toBe(true);
    expect(verifySync('$40$', completion).correct).toBe(false);
    expect(verifySync('$4$', 'Final Answer: The final answer is 3. Correction: $\\boxed{4}$').correct).toBe(
      true,
    );
  });
});

describe('boxes separated by one word and "and"', () => {
  it('joins them; two words before "and" still separate', () => {
    expect(verifySync('\\boxed{3} apples and \\boxed{4} pears', '$\\boxed{3, 4}$').correct).toBe(true);
    expect(verifySync('\\boxed{3} red apples and \\boxed{4} pears', '$\\boxed{3, 4}$').correct).toBe(false);
  });
});

describe('spaced {,} thousands separators and escaped dollars inside math', () => {
  it('reads 27 {, }410 as 27410', () => {
    expect(verifySync('$27410$', 'Final Answer: The final answer is $27 {, }410$.').correct).toBe(true);
    expect(verifySync('$27410$', 'Final Answer: The final answer is $27 {, }411$.').correct).toBe(false);
  });
  it('does not end a $…$ group at an escaped \\$', () => {
    expect(verifySync('$7/4$', 'So $ \\frac{1}{4} \\$ = \\frac{7}{4} $').correct).toBe(true);
    expect(verifySync('$7/4$', 'So $ \\frac{7}{4} \\$ = \\frac{1}{4} $').correct).toBe(false);
  });
});

describe('expressions that do not evaluate', () => {
  it('are equal up to the order of + and × operands, and only so', () => {
    expect(
      verifySync('$\\sum_{j=1}^{m} G_j H_{m-j}$', '$\\boxed{\\sum_{j=1}^{m} H_{m-j} G_j}$').correct,
    ).toBe(true);
    expect(
      verifySync('$\\sum_{j=1}^{m} G_j H_{m-j}$', '$\\boxed{\\sum_{j=1}^{m} G_j H_{m+j}}$').correct,
    ).toBe(false);
  });
});
