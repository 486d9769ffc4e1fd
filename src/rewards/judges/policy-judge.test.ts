// Self-judging (`endpoint: policy`, policy-judge.ts): the judge prompt goes to the policy of the reward's
// context, its reply is the verdict. A scripted policy (the demo tokenizer, replies chosen by the prompt)
// makes the verdicts hand-checkable: calls of one scoring round are sampled in one batch with one seed per
// prompt (hashed from the prompt, so the same prompt draws the same reply in any batch), the reward is
// flagged as using the policy, no verdict is cached, and outside RL training (no policy) the reward is a
// ConfigError. Then two GRPO steps on demo-cold with judge-score graded by the policy itself.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../core/errors.ts';
import type { PolicyBackend, SampledSequence, SampleOptions } from '../../core/policy.ts';
import type { RewardInput, RewardPolicy } from '../../core/reward.ts';
import { EmbeddedBackend } from '../../policy/embedded-backend.ts';
import { additionProblem } from '../../testing/rewards/test-problems.ts';
import { rlConfigSchema } from '../../training/rl/config.ts';
import { buildContext } from '../../training/rl/setup.ts';
import { rlStep } from '../../training/rl/step.ts';
import { rewards } from '../index.ts';

let demo: PolicyBackend;
beforeAll(async () => {
  demo = await EmbeddedBackend.load('examples/checkpoints/demo-cold');
});
afterAll(async () => {
  await demo.close?.();
});

interface Call {
  prompts: string[];
  options: SampleOptions;
  seeds: readonly number[];
}

/** Replies `Verdict: PASS` when the judged answer (after '>') is 5, else FAIL; records every batch. */
function scriptedJudge(contextLength = 128): RewardPolicy & { calls: Call[] } {
  const calls: Call[] = [];
  const reply = (prompt: number[]): SampledSequence => {
    const text = demo.tokenizer.decode(prompt).endsWith('>5\n') ? 'Verdict: PASS' : 'Verdict: FAIL';
    return { tokens: [1, 2, 3], text, logprobs: [], samplingLogprobs: [], stopReason: 'eos' };
  };
  return {
    calls,
    get tokenizer() {
      return demo.tokenizer;
    },
    contextLength,
    async sample() {
      throw new Error('the policy judge should sample with one seed per prompt');
    },
    async sampleWithPromptSeeds(prompts, options, seeds) {
      calls.push({ prompts: prompts.map((prompt) => demo.tokenizer.decode(prompt)), options, seeds });
      return prompts.map((prompt) => [reply(prompt)]);
    },
  };
}

const options = {
  endpoint: 'policy',
  api: 'completions',
  verdict: { type: 'pass-fail' },
  template: '{{prompt}}>{{extracted}}\n',
  maxTokens: 8,
};

const inputs = (...answers: string[]): RewardInput[] =>
  answers.map((answer) => ({ problem: additionProblem('5'), completion: `A:${answer}` }));

describe('judge endpoint: policy', () => {
  it('asks the policy, one batch per scoring round, a seed per prompt; flagged usesPolicy; nothing cached', async () => {
    const policy = scriptedJudge();
    const reward = rewards.get('judge-score')(options, { policy });
    expect(reward.usesPolicy).toBe(true);
    expect(reward.usesJudge).toBe(true);
    const results = await reward.score(inputs('5', '4', '5'));
    expect(results.map((result) => result.reward)).toEqual([1, 0, 1]);
    expect(results.every((result) => result.error === undefined)).toBe(true);
    expect(policy.calls).toHaveLength(1);
    const [call] = policy.calls;
    expect(call.prompts).toHaveLength(3);
    expect(call.options.temperature).toBe(0);
    expect(call.options.maxTokens).toBe(8);
    // same prompt, same seed; another prompt, another seed
    expect(call.seeds[0]).toBe(call.seeds[2]);
    expect(call.seeds[0]).not.toBe(call.seeds[1]);
    // a second round asks again: a changing judge's verdicts are not cached
    await reward.score(inputs('5'));
    expect(policy.calls).toHaveLength(2);
    expect(results[0].components.judge_cached).toBe(0);
  });

  it('a prompt that fills the context is a judge failure with its reason, under the failure policy', async () => {
    const policy = scriptedJudge(6);
    const reward = rewards.get('judge-score')({ ...options, onFailure: 'exclude' }, { policy });
    const [result] = await reward.score(inputs('5'));
    expect(result.error).toBe(true);
    expect(result.failure).toEqual({ kind: 'judge', policy: 'exclude' });
    expect(result.reason).toMatch(/no room for a verdict/);
    expect(policy.calls).toHaveLength(0);
  });

  it('without a policy (outside RL training) the reward is a ConfigError', () => {
    expect(() =>
      rewards.get('judge-rubric')({ ...options, criteria: [{ name: 'ok', text: 'right' }] }),
    ).toThrow(ConfigError);
  });

  it('two GRPO steps on demo-cold graded by the policy itself: the judge is called, failures are counted', async () => {
    const ctx = await buildContext(
      rlConfigSchema.parse({
        seed: 3,
        init: { checkpoint: 'examples/checkpoints/demo-cold' },
        tasks: [{ task: 'addition', difficulties: [1] }],
        poolSize: 4,
        reward: { name: 'judge-score', options: { ...options, onFailure: 'exclude' } },
        rollout: { groupSize: 4, maxTokens: 24 },
        train: { steps: 2, batchSize: 2, learningRate: 1e-4 },
        policy: { workers: 1 },
      }),
    );
    try {
      for (const step of [1, 2]) {
        const report = await rlStep(ctx, step, 1e-4);
        // demo-cold was never taught to judge: none of its 8 replies (2 groups of 4) is a `Verdict:` line,
        // so each is a counted failure with its reason, excluded from training, and the step goes on
        expect(report.metrics['reward/judge_failures']).toBe(8);
        expect(report.rewardErrors).toEqual({ "judge verdict malformed: no 'Verdict: PASS|FAIL' line": 8 });
        // the replies were sampled by the policy: up to maxTokens (8) each
        const written = report.metrics['reward/judge_completion_tokens'];
        expect(written).toBeGreaterThan(0);
        expect(written).toBeLessThanOrEqual(8);
        expect(report.metrics['reward/judge_prompt_tokens']).toBeGreaterThan(3);
      }
    } finally {
      await ctx.policy.close?.();
    }
  }, 120_000);
});
