import { describe, expect, it } from 'vitest';
import { advantageEstimators } from './index.ts';
import { estimateGraded, leftOutMembers } from './unscored.ts';

const grpo = advantageEstimators.get('grpo');
const rloo = advantageEstimators.get('rloo');
const reinforcePp = advantageEstimators.get('reinforce-pp');
const none = (n: number) => Array.from({ length: n }, () => false);

describe('advantages over the graded members', () => {
  it('an excluded member is out of its group baseline and of the batch; the rest match the group without it', () => {
    const graded = estimateGraded(
      grpo,
      [
        { rewards: [1, 0, 0, 1], leftOut: [false, false, true, false] },
        { rewards: [1, 0], leftOut: none(2) },
      ],
      undefined,
    );
    const alone = grpo.estimate([{ rewards: [1, 0, 1] }, { rewards: [1, 0] }]);
    expect(graded.advantages[0]).toEqual([
      alone.advantages[0][0],
      alone.advantages[0][1],
      0,
      alone.advantages[0][2],
    ]);
    expect(graded.included[0]).toEqual([true, true, false, true]);
    expect(graded.advantages[1]).toEqual(alone.advantages[1]);
    // by hand: mean 2/3 of [1, 0, 1]; the excluded 0 would have made it 1/2
    expect(graded.advantages[0][1]).toBeLessThan(grpo.estimate([{ rewards: [1, 0, 0, 1] }]).advantages[0][1]);
  });

  it('batch statistics are over the graded members only (REINFORCE++ whitening)', () => {
    const graded = estimateGraded(
      reinforcePp,
      [
        { rewards: [1, 0, 5], leftOut: [false, false, true] },
        { rewards: [0, 1], leftOut: none(2) },
      ],
      undefined,
    );
    const alone = reinforcePp.estimate([{ rewards: [1, 0] }, { rewards: [0, 1] }]);
    expect(graded.advantages).toEqual([[...alone.advantages[0], 0], alone.advantages[1]]);
  });

  it('a group left below the minimum size, or dropped, teaches nothing', () => {
    const graded = estimateGraded(
      rloo,
      [
        { rewards: [1, 0, 1], leftOut: [true, true, false] },
        { rewards: [1, 0], leftOut: none(2) },
      ],
      undefined,
    );
    expect(graded.included[0]).toEqual([false, false, false]);
    expect(graded.advantages[0]).toEqual([0, 0, 0]);
    expect(graded.advantages[1]).toEqual(rloo.estimate([{ rewards: [1, 0] }]).advantages[0]);
  });

  it('leftOutMembers: exclude marks the member, drop-group the whole group, zero nothing', () => {
    const judge = (policy: 'zero' | 'exclude' | 'drop-group') => ({
      failure: { kind: 'judge' as const, policy },
    });
    expect(leftOutMembers([{}, judge('exclude'), {}])).toEqual([false, true, false]);
    expect(leftOutMembers([{}, judge('drop-group'), {}])).toEqual([true, true, true]);
    expect(leftOutMembers([{}, judge('zero')])).toEqual([false, false]);
  });

  it('without failures it is the estimator itself', () => {
    const groups = [{ rewards: [1, 0, 0, 1], leftOut: none(4) }];
    expect(estimateGraded(grpo, groups, undefined)).toEqual(grpo.estimate(groups));
  });
});
