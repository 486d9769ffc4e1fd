// Grading in the RL step: a reward that throws on one completion gives that completion 0 with the error as
// its reason, the others keep their rewards, and non-finite rewards are zeroed with a reason.
import { describe, expect, it } from 'vitest';
import type { Reward, RewardResult } from '../../core/reward.ts';
import { additionProblem } from '../../tasks/addition.ts';
import type { RlContext } from './context.ts';
import { type SampledGroup, scoreGroups } from './rollout.ts';

function groupOf(completions: string[]): SampledGroup {
  const problem = additionProblem('2', '3');
  return {
    attempt: { problem, prompt: problem.prompt, prefix: '', guided: false },
    context: [],
    rollouts: [],
    completions,
    rewards: [],
    results: [],
  };
}

const fragileReward: Reward = {
  name: 'fragile',
  async score(inputs) {
    return inputs.map(({ completion }): RewardResult => {
      if (completion === 'boom') throw new Error('parser exploded');
      if (completion === 'nan') return { reward: Number.NaN, components: {} };
      return { reward: completion === 'A:5' ? 1 : 0, components: { correct: completion === 'A:5' ? 1 : 0 } };
    });
  },
};

describe('scoreGroups', () => {
  it('isolates a throwing completion and zeroes non-finite rewards, with reasons', async () => {
    const groups = [groupOf(['A:5', 'boom', 'A:4']), groupOf(['nan', 'A:5'])];
    await scoreGroups({ reward: fragileReward } as RlContext, groups, 1);
    expect(groups[0].rewards).toEqual([1, 0, 0]);
    expect(groups[0].results[1]).toMatchObject({ reason: 'reward error: parser exploded', error: true });
    expect(groups[0].results[0].error).toBeUndefined();
    expect(groups[1].rewards).toEqual([0, 1]);
    expect(groups[1].results[0]).toMatchObject({ reason: 'reward was NaN', error: true });
  });
});
