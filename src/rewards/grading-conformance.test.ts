// Conformance of the grading rewards (format, calibration, majority-vote, composite, overlong): one finite
// result per input in input order, numeric components, string reasons, strict options (unknown keys are
// ConfigErrors), and close() that can be called twice. math-answer and code-tests have their own suites.
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../core/errors.ts';
import type { Reward, RewardInput } from '../core/reward.ts';
import { rewards } from './index.ts';
import { additionProblem } from './test-problems.ts';

const valid: Record<string, unknown> = {
  format: {},
  calibration: {},
  'majority-vote': { answers: 'verifier' },
  composite: {
    parts: [{ name: 'format', gate: 1 }, { name: 'verifier' }],
    lengthPenalty: { maxLength: 50, cache: 10 },
  },
  overlong: { maxLength: 50, cache: 10 },
};

const problem = additionProblem('5');
const group = [
  '<think>2+3</think><answer>\nA:5\n</answer>',
  'A:5',
  '<think>t</think><answer>5</answer><analysis>easy</analysis><confidence>0.9</confidence>',
  '',
  'x'.repeat(60),
];
const inputs: RewardInput[] = group.map((completion, i) => ({ problem, completion, group, step: i * 10 }));

const opened: Reward[] = [];
afterAll(async () => {
  await Promise.all(opened.map((reward) => reward.close?.()));
});

describe.each(Object.keys(valid))('reward %s', (name) => {
  it('one finite result per input, in order, with numeric components', async () => {
    const reward = rewards.get(name)(valid[name]);
    opened.push(reward);
    expect(reward.name).toBe(name);
    const results = await reward.score(inputs);
    expect(results).toHaveLength(inputs.length);
    for (const result of results) {
      expect(Number.isFinite(result.reward)).toBe(true);
      for (const value of Object.values(result.components)) expect(typeof value).toBe('number');
      if (result.reason !== undefined) expect(typeof result.reason).toBe('string');
    }
    const single = await reward.score([inputs[1]]);
    expect(single[0].reward).toBe(results[1].reward);
    expect(await reward.score([])).toEqual([]);
  });

  it('refuses unknown option keys', () => {
    expect(() => rewards.get(name)({ ...(valid[name] as object), bogus: 1 })).toThrow(ConfigError);
  });

  it('close() twice is harmless', async () => {
    const reward = rewards.get(name)(valid[name]);
    await reward.close?.();
    await reward.close?.();
  });
});
