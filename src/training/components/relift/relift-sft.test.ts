// MIFO's token selection and the SFT weights it gives, by hand.
import { describe, expect, it } from 'vitest';
import { highEntropyTokens, sftData } from './relift-sft.ts';

describe('highEntropyTokens', () => {
  it('keeps the ceil(fraction · n) highest entropies of the whole minibatch, ties to the earlier token', () => {
    // 5 tokens, 0.5 → 3 kept: 0.9, then the two 0.5s (the tie 0.5 vs 0.5 is inside the cut).
    expect(
      highEntropyTokens(
        [
          [0.1, 0.9],
          [0.5, 0.2, 0.5],
        ],
        0.5,
      ),
    ).toEqual([
      [false, true],
      [true, false, true],
    ]);
    // 0.4 → 2 kept: 0.9 and the earlier 0.5.
    expect(
      highEntropyTokens(
        [
          [0.1, 0.9],
          [0.5, 0.2, 0.5],
        ],
        0.4,
      ),
    ).toEqual([
      [false, true],
      [true, false, false],
    ]);
    expect(highEntropyTokens([[0.3]], 1)).toEqual([[true]]);
  });
});

describe('sftData with a selection', () => {
  it('weighs 1/N on the kept demonstration tokens only, N their count', () => {
    // Prompt [1, 2], demonstration [3, 4, 5]: weights[t] weighs tokens[t + 1], demo at t = 1, 2, 3.
    const [datum] = sftData([{ tokens: [1, 2, 3, 4, 5], start: 2 }], [[true, false, true]]);
    expect(datum.weights).toEqual([0, 0.5, 0, 0.5]);
    const [all] = sftData([{ tokens: [1, 2, 3, 4, 5], start: 2 }]);
    expect(all.weights).toEqual([0, 1 / 3, 1 / 3, 1 / 3]);
  });
});
