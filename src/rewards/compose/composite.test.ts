import { describe, expect, it } from 'vitest';
import { ConfigError, UnknownNameError } from '../../core/errors.ts';
import { additionProblem } from '../../testing/rewards/test-problems.ts';
import { rewards } from '../index.ts';
import { createCompositeReward } from './composite.ts';
import { overlongPenalty } from './overlong.ts';
import { scheduleWeight } from './schedule.ts';

const problem = additionProblem('5');

async function score(options: unknown, completion: string, step?: number) {
  const [result] = await rewards.get('composite')(options).score([{ problem, completion, step }]);
  return result;
}

describe('composite: weighted sums', () => {
  it('2·verifier + 0.5·format(answer-line) = 2.5, components prefixed by part', async () => {
    const options = {
      parts: [
        { name: 'verifier', weight: 2 },
        { name: 'format', options: { pattern: 'answer-line' }, weight: 0.5 },
      ],
    };
    const result = await score(options, 'A:5');
    expect(result.reward).toBeCloseTo(2.5, 12);
    expect(result.components).toEqual({
      'verifier/reward': 1,
      'verifier/weight': 2,
      'verifier/correct': 1,
      'format/reward': 1,
      'format/weight': 0.5,
      'format/format': 1,
    });
    const wrong = await score(options, 'A:6');
    expect(wrong.reward).toBeCloseTo(0.5, 12);
    expect(wrong.reason).toBe("verifier: answer '6' is wrong");
  });
});

describe('composite: gates', () => {
  const gated = {
    parts: [
      { name: 'format', weight: 0.1, gate: 1 },
      { name: 'verifier', weight: 1 },
    ],
  };

  it('gate open: 0.1·1 + 1·1 = 1.1', async () => {
    const result = await score(gated, '<think>2+3</think><answer>\nA:5\n</answer>');
    expect(result.reward).toBeCloseTo(1.1, 12);
    expect(result.components.gate).toBe(1);
    expect(result.components['verifier/correct']).toBe(1);
  });

  it('gate closed: only the gate part counts, the others are not scored', async () => {
    const result = await score(gated, 'A:5');
    expect(result.reward).toBe(0);
    expect(result.components.gate).toBe(0);
    expect(result.components['verifier/reward']).toBeUndefined();
    expect(result.reason).toBe("gate 'format' closed; format: format: missing <think>");
  });

  it('closedReward replaces the sum when a gate is closed', async () => {
    expect((await score({ ...gated, closedReward: -1 }, 'A:5')).reward).toBe(-1);
    expect(
      (await score({ ...gated, closedReward: -1 }, '<think>x</think><answer>A:6</answer>')).reward,
    ).toBeCloseTo(0.1, 12);
  });

  it('mixed batch: each input gated on its own', async () => {
    const reward = rewards.get('composite')(gated);
    const results = await reward.score([
      { problem, completion: 'A:5' },
      { problem, completion: '<think>t</think><answer>\nA:5\n</answer>' },
      { problem, completion: '<think>t</think><answer>A:4</answer>' },
    ]);
    expect(results.map((result) => result.reward)).toEqual([0, 1.1, 0.1]);
  });
});

describe('composite: schedules', () => {
  it('piecewise-linear weights by hand', () => {
    const ramp = [
      { step: 0, weight: 0 },
      { step: 100, weight: 1 },
    ];
    expect(scheduleWeight(ramp, 0)).toBe(0);
    expect(scheduleWeight(ramp, 25)).toBe(0.25);
    expect(scheduleWeight(ramp, 100)).toBe(1);
    expect(scheduleWeight(ramp, 500)).toBe(1);
    const vee = [
      { step: 10, weight: 1 },
      { step: 20, weight: 0 },
      { step: 40, weight: 0.5 },
    ];
    expect(scheduleWeight(vee, 0)).toBe(1);
    expect(scheduleWeight(vee, 15)).toBe(0.5);
    expect(scheduleWeight(vee, 20)).toBe(0);
    expect(scheduleWeight(vee, 30)).toBe(0.25);
    expect(scheduleWeight(vee, 41)).toBe(0.5);
  });

  it('the reward follows input.step (0 when absent)', async () => {
    const options = {
      parts: [
        {
          name: 'verifier',
          schedule: [
            { step: 0, weight: 0 },
            { step: 100, weight: 1 },
          ],
        },
        {
          name: 'format',
          options: { pattern: 'answer-line' },
          schedule: [
            { step: 0, weight: 1 },
            { step: 100, weight: 0 },
          ],
        },
      ],
    };
    const at = async (step?: number) => (await score(options, 'A:6', step)).reward;
    // A:6 is wrong (verifier 0) but well formed (format 1): reward = format weight = 1 − step/100.
    expect(await at()).toBe(1);
    expect(await at(0)).toBe(1);
    expect(await at(30)).toBeCloseTo(0.7, 12);
    expect(await at(100)).toBe(0);
    expect(await at(1000)).toBe(0);
    expect((await score(options, 'A:5', 30)).reward).toBeCloseTo(1, 12);
    expect((await score(options, 'A:5', 30)).components['verifier/weight']).toBeCloseTo(0.3, 12);
  });
});

describe('composite: DAPO overlong penalty', () => {
  it('the formula at the boundaries (L_max = 100, L_cache = 20)', () => {
    const options = { maxLength: 100, cache: 20, factor: 1 };
    expect(overlongPenalty(0, options)).toBe(0);
    expect(overlongPenalty(80, options)).toBe(0);
    expect(overlongPenalty(81, options)).toBeCloseTo(-0.05, 12);
    expect(overlongPenalty(90, options)).toBeCloseTo(-0.5, 12);
    expect(overlongPenalty(100, options)).toBe(-1);
    expect(overlongPenalty(101, options)).toBe(-1);
    expect(overlongPenalty(90, { ...options, factor: 0.5 })).toBeCloseTo(-0.25, 12);
    // DAPO defaults: 20480 / 4096 → soft zone starts after 16384.
    expect(overlongPenalty(16384, { maxLength: 20480, cache: 4096, factor: 1 })).toBe(0);
    expect(overlongPenalty(18432, { maxLength: 20480, cache: 4096, factor: 1 })).toBe(-0.5);
  });

  it('added to the sum, measured in characters', async () => {
    const options = { parts: [{ name: 'verifier' }], lengthPenalty: { maxLength: 100, cache: 20 } };
    const completion = (length: number) => `${'x'.repeat(length - 4)}\nA:5`;
    const rewardsAt: number[] = [];
    for (const length of [80, 81, 90, 100, 101])
      rewardsAt.push((await score(options, completion(length))).reward);
    expect(rewardsAt[0]).toBe(1);
    expect(rewardsAt[1]).toBeCloseTo(0.95, 12);
    expect(rewardsAt[2]).toBeCloseTo(0.5, 12);
    expect(rewardsAt[3]).toBeCloseTo(0, 12);
    expect(rewardsAt[4]).toBeCloseTo(0, 12);
    const long = await score(options, completion(90));
    expect(long.components.length_penalty).toBeCloseTo(-0.5, 12);
    expect(long.reason).toBe('overlong: 90 chars > 80');
  });

  it('tokens through an injected counter; the overlong reward alone', async () => {
    const words = (text: string) => text.split(' ').length;
    const reward = createCompositeReward(
      { parts: [{ name: 'verifier' }], lengthPenalty: { maxLength: 4, cache: 2, unit: 'tokens' } },
      { countTokens: words, rewards },
    );
    const [result] = await reward.score([{ problem, completion: 'one two three\nA:5' }]);
    expect(result.reward).toBeCloseTo(1 - 0.5, 12); // 3 tokens: (2 − 3)/2 = −0.5
    const [alone] = await rewards
      .get('overlong')({ maxLength: 10, cache: 5 })
      .score([{ problem, completion: 'x'.repeat(8) }]);
    expect(alone.reward).toBeCloseTo(-0.6, 12);
    expect(alone.components).toEqual({ length: 8, penalty: expect.closeTo(-0.6, 12) });
  });
});

describe('composite: option errors', () => {
  it('are ConfigErrors (or UnknownNameError for a part name)', () => {
    const make = (options: unknown) => () => rewards.get('composite')(options);
    expect(make({ parts: [] })).toThrow(ConfigError);
    expect(make({ parts: [{ name: 'nope' }] })).toThrow(UnknownNameError);
    expect(make({ parts: [{ name: 'verifier' }, { name: 'verifier' }] })).toThrow(/labelled 'verifier'/);
    expect(make({ parts: [{ name: 'verifier', label: 'a/b' }] })).toThrow(/must not contain/);
    expect(
      make({
        parts: [
          {
            name: 'verifier',
            schedule: [
              { step: 10, weight: 1 },
              { step: 10, weight: 0 },
            ],
          },
        ],
      }),
    ).toThrow(/strictly increase/);
    expect(make({ parts: [{ name: 'verifier' }], lengthPenalty: { maxLength: 10, cache: 20 } })).toThrow(
      /cache/,
    );
    expect(make({ parts: [{ name: 'verifier' }], lengthPenalty: { unit: 'tokens' } })).toThrow(
      /token counter/,
    );
    expect(make({ parts: [{ name: 'format', options: { regex: '(' } }] })).toThrow(ConfigError);
    expect(make({ parts: [{ name: 'verifier', wieght: 2 }] })).toThrow(/unknown key 'wieght'/);
  });
});
