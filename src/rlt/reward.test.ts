// The RLT reward against values computed by hand (reward.ts header: the authors' formula and quirks).
import { describe, expect, it } from 'vitest';
import { defaultRltRewardOptions, rltReward, rltRewardOptionsSchema } from './reward.ts';

const base = {
  // mean −2, min −3 → r_SS = 1·(−2) + 0.01·(−3) = −2.03
  solutionLogprobs: [-1, -2, -3],
  // k = τ − s = [1, −0.5] → mean 0.25, max 1 → r_KL = 3·0.25 + 0.03·1 = 0.78
  teacherExplanationLogprobs: [-0.5, -1],
  studentExplanationLogprobs: [-1.5, -0.5],
  formatMatched: true,
};

describe('rltReward', () => {
  it('has the run config coefficients [1, 0.01] and [3, 0.03] by default', () => {
    expect(defaultRltRewardOptions.solutionCoefficients).toEqual([1, 0.01]);
    expect(defaultRltRewardOptions.klCoefficients).toEqual([3, 0.03]);
    expect(defaultRltRewardOptions.clipLogProb).toBe(1e5);
    expect(defaultRltRewardOptions.clipKl).toBe(1e5);
    expect(defaultRltRewardOptions.notMatchedPenalty).toBe(-1);
  });

  it('computes r = r_SS − r_KL + match by hand', () => {
    const parts = rltReward(base);
    expect(parts.rSs).toBeCloseTo(-2.03, 12);
    expect(parts.rKl).toBeCloseTo(0.78, 12);
    expect(parts.match).toBe(0);
    expect(parts.reward).toBeCloseTo(-2.81, 12);
    expect(parts.meanLogProb).toBe(-2);
    expect(parts.minLogProb).toBe(-3);
    expect(parts.meanKl).toBeCloseTo(0.25, 12);
    expect(parts.maxKl).toBeCloseTo(1, 12);
  });

  it('adds −1 when the explanation format is missing', () => {
    const parts = rltReward({ ...base, formatMatched: false });
    expect(parts.match).toBe(-1);
    expect(parts.reward).toBeCloseTo(-3.81, 12);
  });

  it('takes other coefficients (the reward cfg file: [5, 0.05] for both)', () => {
    const options = rltRewardOptionsSchema.parse({
      solutionCoefficients: [5, 0.05],
      klCoefficients: [5, 0.05],
    });
    // r_SS = 5·(−2) + 0.05·(−3) = −10.15; r_KL = 5·0.25 + 0.05·1 = 1.3
    expect(rltReward(base, options).reward).toBeCloseTo(-11.45, 12);
  });

  it('floors solution log-probs at −1e5 (also −Infinity)', () => {
    const parts = rltReward({ ...base, solutionLogprobs: [-2e5, Number.NEGATIVE_INFINITY, -1] });
    // floored [−1e5, −1e5, −1]: mean −66667, min −1e5
    expect(parts.meanLogProb).toBeCloseTo(-200001 / 3, 6);
    expect(parts.minLogProb).toBe(-1e5);
    expect(parts.rSs).toBeCloseTo(-200001 / 3 - 1000, 6);
  });

  it('caps k at 1e5 and lets a negative k be a bonus (no floor)', () => {
    const capped = rltReward({
      ...base,
      teacherExplanationLogprobs: [0],
      studentExplanationLogprobs: [Number.NEGATIVE_INFINITY],
    });
    expect(capped.rKl).toBeCloseTo(3e5 + 3e3, 6);
    const bonus = rltReward({ ...base, teacherExplanationLogprobs: [-3], studentExplanationLogprobs: [-1] });
    // k = −2: r_KL = 3·(−2) + 0.03·(−2) = −6.06, so r = −2.03 + 6.06
    expect(bonus.rKl).toBeCloseTo(-6.06, 12);
    expect(bonus.reward).toBeCloseTo(4.03, 12);
  });

  it('replaces a NaN log-prob term by −1 but a NaN KL term by +1', () => {
    const nanSolution = rltReward({ ...base, solutionLogprobs: [Number.NaN, -1] });
    expect(nanSolution.meanLogProb).toBe(-1);
    expect(nanSolution.minLogProb).toBe(-1);
    expect(nanSolution.rSs).toBeCloseTo(-1.01, 12);
    const nanKl = rltReward({ ...base, teacherExplanationLogprobs: [Number.NaN, -1] });
    expect(nanKl.meanKl).toBe(1);
    expect(nanKl.maxKl).toBe(1);
    expect(nanKl.rKl).toBeCloseTo(3.03, 12);
  });

  it('charges an empty explanation r_KL = 3.03', () => {
    const parts = rltReward({ ...base, teacherExplanationLogprobs: [], studentExplanationLogprobs: [] });
    expect(parts.rKl).toBeCloseTo(3.03, 12);
    expect(parts.reward).toBeCloseTo(-2.03 - 3.03, 12);
  });

  it("uses Schulman's estimator k − 1 + e^−k when asked", () => {
    const options = rltRewardOptionsSchema.parse({ schulmanKl: true });
    const parts = rltReward(
      { ...base, teacherExplanationLogprobs: [0], studentExplanationLogprobs: [-1] },
      options,
    );
    const k = 1 - 1 + Math.exp(-1);
    expect(parts.rKl).toBeCloseTo(3 * k + 0.03 * k, 12);
  });

  it('rejects an empty solution and mismatched explanation spans', () => {
    expect(() => rltReward({ ...base, solutionLogprobs: [] })).toThrow(/empty solution/);
    expect(() => rltReward({ ...base, teacherExplanationLogprobs: [-1] })).toThrow(/same tokens/);
  });
});
