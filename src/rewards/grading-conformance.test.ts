// Conformance of the grading rewards (format, calibration, majority-vote, composite, overlong, refusal-aware
// and the self-rewards, which get the real demo-cold checkpoint as their policy) through
// checkReward (src/rewards/conformance.ts), the helper a user runs on their own reward: one finite result
// per input in input order, numeric components, string reasons, strict options (unknown keys are
// ConfigErrors), close() that can be called twice. math-answer and code-tests have their own suites.
// The helper itself is tested on deliberately broken rewards: each failure names its reason.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConformanceError } from '../core/errors.ts';
import type { PolicyBackend } from '../core/policy.ts';
import type { Reward, RewardContext, RewardResult } from '../core/reward.ts';
import { EmbeddedBackend } from '../policy/embedded-backend.ts';
import { checkReward } from './conformance.ts';
import { rewards } from './index.ts';

const valid: Record<string, unknown> = {
  format: {},
  calibration: {},
  'majority-vote': { answers: 'verifier' },
  composite: {
    parts: [{ name: 'format', gate: 1 }, { name: 'verifier' }],
    lengthPenalty: { maxLength: 50, cache: 10 },
  },
  overlong: { maxLength: 50, cache: 10 },
  verifier: {},
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
afterAll(async () => {
  await demo?.close?.();
});
const contextOf = (name: string): RewardContext | undefined =>
  usesPolicy.has(name) ? { policy: demo } : undefined;

describe.each(Object.keys(valid))('reward %s', (name) => {
  it('passes checkReward', async () => {
    const report = await checkReward(rewards.get(name), { options: valid[name], context: contextOf(name) });
    expect(report.checks).toContain('the factory refuses unknown option keys with a ConfigError');
    expect(report.checks).toContain('each reward is a finite number');
  });
});

/** A reward that is right except where `breakIt` changes one result. */
function broken(breakIt: (index: number) => unknown): Reward {
  return {
    name: 'broken',
    async score(inputs) {
      return inputs.map((input, index) =>
        input.completion === '' ? breakIt(index) : { reward: 1, components: { correct: 1 } },
      ) as RewardResult[];
    },
  };
}

describe('checkReward on broken rewards', () => {
  it('fails with the reason: NaN, wrong shape, throws, wrong count', async () => {
    await expect(checkReward(broken(() => ({ reward: Number.NaN, components: {} })))).rejects.toThrow(
      "reward 'broken': each reward is a finite number (result 3: null (NaN))",
    );
    await expect(checkReward(broken(() => 0.5))).rejects.toThrow('each result is an object (result 3: 0.5)');
    await expect(checkReward(broken(() => ({ reward: 1, components: { x: 'y' } })))).rejects.toThrow(
      'components: an object of numbers',
    );
    const throwing: Reward = {
      name: 'throwing',
      score: async () => {
        throw new Error('grader crashed');
      },
    };
    await expect(checkReward(throwing)).rejects.toThrow(
      "reward 'throwing': score(inputs) threw: Error: grader crashed",
    );
    const short: Reward = {
      name: 'short',
      score: async (inputs) => inputs.slice(1).map(() => ({ reward: 1, components: {} })),
    };
    await expect(checkReward(short)).rejects.toBeInstanceOf(ConformanceError);
    await expect(checkReward(short)).rejects.toThrow('one result per input (4 results for 5 inputs)');
  });

  it('a factory that accepts unknown option keys fails', async () => {
    const lax = () => broken(() => ({ reward: 0, components: {} }));
    await expect(checkReward(lax)).rejects.toThrow(
      'refuses unknown option keys with a ConfigError (nothing was thrown)',
    );
    expect((await checkReward(lax, { strictOptions: false })).subject).toBe("reward 'lax'");
  });
});
