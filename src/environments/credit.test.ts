// Credit for multi-turn episodes (credit.ts): the turn-level leave-one-out advantages by hand, the
// datum's per-turn weights, and the capped format reward.
import { describe, expect, it } from 'vitest';
import { episodeTurnDatum, turnAdvantages, turnCallRewards, wellFormedCallReward } from './credit.ts';
import { type Episode, emptyErrors } from './episode-record.ts';

describe('turn-level credit', () => {
  it('is the reward-to-go minus the mean of the other episodes that reached the turn', () => {
    // Episode 0: turns rewarded 0, 1; episode 1: 0, 0, 1; episode 2: 1 (one turn).
    const advantages = turnAdvantages([[0, 1], [0, 0, 1], [1]]);
    // Reward-to-go: [1, 1], [1, 1, 1], [1]. Turn 0: every episode 1 → 0. Turn 1: episodes 0 and 1 → 0.
    // Turn 2: episode 1 alone → no other episode: A = G = 1.
    expect(advantages).toEqual([[0, 0], [0, 0, 1], [0]]);
    const mixed = turnAdvantages([
      [1, 0],
      [0, 0],
      [0, 3],
    ]);
    // G: [1, 0], [0, 0], [3, 3]; turn 0: 1 − 1.5, 0 − 2, 3 − 0.5; turn 1: 0 − 1.5, 0 − 1.5, 3 − 0.
    expect(mixed).toEqual([
      [-0.5, -1.5],
      [-2, -1.5],
      [2.5, 3],
    ]);
  });

  it('discounts later rewards with γ, and refuses γ outside [0, 1]', () => {
    expect(turnAdvantages([[0, 0, 1]], { discount: 0.5 })).toEqual([[0.25, 0.5, 1]]);
    expect(() => turnAdvantages([[1]], { discount: 1.5 })).toThrow(/discount/);
  });

  it("weights each turn's sampled tokens by its advantage, and nothing the environment wrote", () => {
    const episode: Episode = {
      tokens: [1, 5, 6, 7, 8, 9, 10],
      mask: [0, 1, 1, 0, 1, 1, 1],
      logprobs: [],
      samplingLogprobs: [],
      turns: [
        {
          start: 1,
          actionTokens: 2,
          observationTokens: 1,
          observationTokensBefore: 1,
          reward: 0,
          stopReason: 'stop',
        },
        {
          start: 4,
          actionTokens: 3,
          observationTokens: 0,
          observationTokensBefore: 0,
          reward: 1,
          stopReason: 'eos',
        },
      ],
      return: 1,
      end: 'done',
      errors: emptyErrors(),
      metrics: { tool_calls: 3 },
    };
    expect(episodeTurnDatum(episode, [0.5, -1]).weights).toEqual([0.5, 0.5, 0, -1, -1, -1]);
    expect(() => episodeTurnDatum(episode, [1])).toThrow(/2 turns/);
    expect(wellFormedCallReward(episode)).toBe(0.2); // 3 calls × 0.1, capped at 0.2
    expect(wellFormedCallReward({ ...episode, errors: { ...emptyErrors(), parse: 2 } })).toBeCloseTo(0.1);
    expect(wellFormedCallReward({ ...episode, metrics: {} })).toBe(0);
  });

  it('pays the call reward per turn: calls without a parse error, in order, up to the cap', () => {
    const call = { stopReason: 'stop' };
    const turns = [
      call,
      { stopReason: 'stop', error: { kind: 'parse' } },
      { ...call, error: { kind: 'tool' } },
      call,
    ];
    // 0.1 each on the well-formed calls (a failing tool is still a well-formed call) until 0.25 is paid.
    expect(turnCallRewards(turns, 0.1, 0.25).map((value) => Number(value.toFixed(12)))).toEqual([
      0.1, 0, 0.1, 0.05,
    ]);
    expect(turnCallRewards([{ stopReason: 'eos' }, { stopReason: 'length' }], 0.1, 1)).toEqual([0, 0]);
  });
});
