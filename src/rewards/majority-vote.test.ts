import { afterAll, describe, expect, it } from 'vitest';
import { UserError } from '../core/errors.ts';
import type { Reward, RewardResult } from '../core/reward.ts';
import { additionProblem, mathProblem } from '../testing/rewards/test-problems.ts';
import { rewards } from './index.ts';
import { selectFirstPerGroup } from './majority-vote.ts';

const opened: Reward[] = [];
function make(options: unknown = {}): Reward {
  const reward = rewards.get('majority-vote')(options);
  opened.push(reward);
  return reward;
}
afterAll(async () => {
  await Promise.all(opened.map((reward) => reward.close?.()));
});

/** Scores every member of the group, as the trainer does. */
function scoreGroup(
  reward: Reward,
  group: string[],
  problem = additionProblem('5'),
): Promise<RewardResult[]> {
  return reward.score(group.map((completion) => ({ problem, completion, group })));
}

describe('majority-vote reward (TTRL), task-verifier answers', () => {
  it('3 of 6 say 5, 2 say 6, one abstains: ŷ = 5, ratio 3/6, label correct', async () => {
    const group = ['A:5', '2+3\nA:5', 'A:6', 'I do not know', 'A:6', 'A:5'];
    const results = await scoreGroup(make(), group);
    expect(results.map((result) => result.reward)).toEqual([1, 1, 0, 0, 0, 1]);
    expect(results.map((result) => result.components.answered)).toEqual([1, 1, 1, 0, 1, 1]);
    for (const result of results) {
      expect(result.components.majority_ratio).toBeCloseTo(0.5, 12);
      expect(result.components.label_accuracy).toBe(1);
    }
    expect(results[2].reason).toBe('disagrees with the majority (3/6 votes)');
    expect(results[3].reason).toBe('no answer');
  });

  it('a tie goes to the answer seen first (Counter.most_common); the pseudo-label can be wrong', async () => {
    const results = await scoreGroup(make(), ['A:7', 'A:5', 'A:5', 'A:7']);
    expect(results.map((result) => result.reward)).toEqual([1, 0, 0, 1]);
    expect(results[0].components.label_accuracy).toBe(0);
    expect(results[0].components.majority_ratio).toBe(0.5);
  });

  it('abstentions do not vote but count in N; a lone answer wins', async () => {
    const results = await scoreGroup(make(), ['no', 'A:9', 'nothing']);
    expect(results.map((result) => result.reward)).toEqual([0, 1, 0]);
    expect(results[1].components.majority_ratio).toBeCloseTo(1 / 3, 12);
  });

  it('no answer in the group: every reward is 0', async () => {
    const results = await scoreGroup(make({ agree: 1, disagree: -1 }), ['hmm', 'well']);
    expect(results.map((result) => result.reward)).toEqual([-1, -1]);
    expect(results[0].reason).toBe('no answer in the group');
    expect(results[0].components).toEqual({ majority: 0, majority_ratio: 0, answered: 0, label_accuracy: 0 });
  });

  it('no gold answer: no label_accuracy component', async () => {
    const [result] = await scoreGroup(make(), ['A:5', 'A:5'], additionProblem(''));
    expect(result.reward).toBe(1);
    expect(result.components.label_accuracy).toBeUndefined();
  });

  it('needs the group', async () => {
    await expect(make().score([{ problem: additionProblem(), completion: 'A:5' }])).rejects.toThrow(
      UserError,
    );
  });
});

describe('majority-vote reward, math answers', () => {
  it('votes by math-answer key, rewards equivalence to ŷ, grades ŷ against the gold', async () => {
    const group = [
      'so \\boxed{0.5}',
      'hence \\boxed{\\frac{1}{2}}',
      'The final answer is $0.5$.',
      '\\boxed{3}',
      '\\boxed{0.50}',
    ];
    const results = await scoreGroup(
      make({ answers: 'math', math: { poolSize: 1 } }),
      group,
      mathProblem('1/2'),
    );
    // keys: 0.5 ×2, \frac{1}{2}, 3, 0.50 → ŷ = 0.5 with 2 of 5 votes; 1/2 and 0.50 grade equal to it.
    expect(results.map((result) => result.reward)).toEqual([1, 1, 1, 0, 1]);
    expect(results[0].components.majority_ratio).toBeCloseTo(0.4, 12);
    expect(results[0].components.label_accuracy).toBe(1);
  });
});

describe('TTRL downsampling (select_top_k_per_prompt)', () => {
  it('keeps the first n of each group of N', () => {
    expect(selectFirstPerGroup([0, 1, 2, 3, 4, 5, 6, 7], 4, 2)).toEqual([0, 1, 4, 5]);
    expect(() => selectFirstPerGroup([0, 1, 2], 2, 1)).toThrow(RangeError);
    expect(() => selectFirstPerGroup([0, 1], 2, 3)).toThrow(RangeError);
  });
});
