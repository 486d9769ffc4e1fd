// Conformance of the grading rewards (format, calibration, majority-vote, composite, overlong, refusal-aware
// and the self-rewards): one finite result per input in input order, numeric components, string reasons,
// strict options (unknown keys are ConfigErrors), and close() that can be called twice. math-answer and
// code-tests have their own suites. Self-rewards that call the policy get the real demo-cold checkpoint.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../core/errors.ts';
import type { PolicyBackend } from '../core/policy.ts';
import type { Reward, RewardContext, RewardInput } from '../core/reward.ts';
import { EmbeddedBackend } from '../policy/embedded-backend.ts';
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
  'refusal-aware': { madeUp: -1 },
  'self-confidence': {},
  'self-consistency': { cuts: 2 },
  'synthesized-reference': { maxTokens: 16 },
};

/** Rewards that grade with the policy being trained (RewardContext.policy). */
const usesPolicy = new Set(['self-confidence', 'self-consistency', 'synthesized-reference']);
let demo: PolicyBackend;
beforeAll(async () => {
  demo = await EmbeddedBackend.load('examples/checkpoints/demo-cold');
});
const contextOf = (name: string): RewardContext | undefined =>
  usesPolicy.has(name) ? { policy: demo } : undefined;

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
  await demo?.close?.();
});

describe.each(Object.keys(valid))('reward %s', (name) => {
  it('one finite result per input, in order, with numeric components', async () => {
    const reward = rewards.get(name)(valid[name], contextOf(name));
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
    expect(() => rewards.get(name)({ ...(valid[name] as object), bogus: 1 }, contextOf(name))).toThrow(
      ConfigError,
    );
  });

  it('close() twice is harmless', async () => {
    const reward = rewards.get(name)(valid[name], contextOf(name));
    await reward.close?.();
    await reward.close?.();
  });
});
