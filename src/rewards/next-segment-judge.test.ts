// next-segment with `grader: judge`: exact matches never reach the judge; other predictions are graded by
// the policy's `A:yes`/`A:no` (a scripted policy for the verdicts, the real demo-cold for the plumbing).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../core/errors.ts';
import type { PolicyBackend, SampledSequence, SampleOptions } from '../core/policy.ts';
import type { Problem } from '../core/problem.ts';
import type { RewardPolicy } from '../core/reward.ts';
import { EmbeddedBackend } from '../policy/embedded-backend.ts';
import { rewards } from './index.ts';
import { readVerdict } from './next-segment-judge.ts';

let demo: PolicyBackend;
beforeAll(async () => {
  demo = await EmbeddedBackend.load('examples/checkpoints/demo-cold');
});
afterAll(async () => {
  await demo.close?.();
});

const problem: Problem = {
  id: 'seg',
  task: 'text-corpus',
  prompt: 'A cat opens the map.\n',
  answer: 'The fox sees two apples.',
  solution: '>A cat opens the map.\nA:The fox sees two apples.',
  category: 'text-corpus',
  difficulty: 2,
  params: {},
};

/** Demo-cold's tokenizer and context; every sample answers `verdict`; prompts are recorded as text. */
function scriptedJudge(verdict: string, seen: string[]): RewardPolicy {
  return {
    tokenizer: demo.tokenizer,
    contextLength: demo.contextLength,
    async sample(prompts: number[][], options: SampleOptions): Promise<SampledSequence[][]> {
      return prompts.map((prompt) => {
        seen.push(demo.tokenizer.decode(prompt.slice(1)));
        expect(options.n).toBe(1);
        return [{ tokens: [], text: verdict, logprobs: [], samplingLogprobs: [], stopReason: 'eos' }];
      });
    },
  } as RewardPolicy;
}

describe('next-segment grader judge', () => {
  it('pays the judge’s yes on non-exact predictions only, and never asks about exact ones', async () => {
    const seen: string[] = [];
    const reward = rewards.get('next-segment')(
      { grader: 'judge' },
      { policy: scriptedJudge('ok\nA:yes', seen) },
    );
    const results = await reward.score(
      ['A:The fox  sees two apples.', 'A:A fox sees 2 apples.', 'no answer'].map((completion) => ({
        problem,
        completion,
        step: 1,
      })),
    );
    expect(results.map((r) => r.reward)).toEqual([1, 1, 0]);
    expect(results.map((r) => r.components.judged ?? 0)).toEqual([0, 1, 0]);
    expect(results.map((r) => r.components.exact ?? 0)).toEqual([1, 0, 0]);
    expect(seen).toEqual([
      'Same meaning? answer A:yes or A:no\nP:A fox sees 2 apples.\nR:The fox sees two apples.\n',
    ]);
    const no = rewards.get('next-segment')({ grader: 'judge' }, { policy: scriptedJudge('A:no', []) });
    const [graded] = await no.score([{ problem, completion: 'A:A fox sees 2 apples.' }]);
    expect(graded).toMatchObject({ reward: 0, reason: 'the judge said no' });
  });

  it('runs with the real demo-cold as judge (greedy, finite, judged), and refuses without a policy', async () => {
    const reward = rewards.get('next-segment')(
      { grader: 'judge', judge: { maxTokens: 8 } },
      { policy: demo },
    );
    const results = await reward.score([{ problem, completion: 'A:A fox sees 2 apples.', step: 0 }]);
    expect(results[0].components.judged).toBe(1);
    expect([0, 1]).toContain(results[0].reward);
    expect(() => rewards.get('next-segment')({ grader: 'judge' })).toThrow(ConfigError);
    expect(() => rewards.get('next-segment')({ grader: 'model' })).toThrow(ConfigError);
  });

  it('reads the verdict from the last A: line', () => {
    expect(['A:yes', 'x\nA:Yes.', 'A: y', 'A:true'].map(readVerdict)).toEqual([true, true, true, true]);
    expect(['A:no', 'yes', 'A:yes please', ''].map(readVerdict)).toEqual([false, false, false, false]);
  });
});
