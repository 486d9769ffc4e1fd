// The power analysis against values computed by hand from its formulas (power.ts's header).
import { describe, expect, it } from 'vitest';
import {
  differenceVariance,
  evalSamplingVariance,
  minimumDetectableEffect,
  seedsNeeded,
  varianceComponents,
} from './power.ts';

const pilot = { problems: 100, samples: 4 };
const test = { alpha: 0.05, power: 0.8 };

describe('power analysis', () => {
  // Cold starts A: 0.5, 0.6; B: 0.7, 0.8. Grand mean 0.65; MSW = 0.01/2 = 0.005; σ²_eval =
  // 0.65·0.35/400 = 0.00056875; MSB = 0.04; n₀ = (4 − 8/4)/1 = 2.
  const components = varianceComponents(
    [
      [0.5, 0.6],
      [0.7, 0.8],
    ],
    pilot,
  );

  it('splits a pilot into cold-start, RL-seed and evaluation variance', () => {
    expect(evalSamplingVariance(0.65, 100, 4)).toBeCloseTo(0.00056875, 12);
    expect(components.pass).toBeCloseTo(0.65, 12);
    expect(components.rlSeed).toBeCloseTo(0.005 - 0.00056875, 12);
    expect(components.coldStart).toBeCloseTo((0.04 - 0.005) / 2, 12);
    expect(components.coldStartEstimated).toBe(true);
  });

  it('one cold start: no cold-start estimate; one run per cold start: refused', () => {
    const one = varianceComponents([[0.5, 0.6, 0.7]], pilot);
    expect(one.coldStartEstimated).toBe(false);
    expect(one.coldStart).toBe(0);
    expect(one.rlSeed).toBeCloseTo(0.01 - evalSamplingVariance(0.6, 100, 4), 12);
    expect(() => varianceComponents([[0.5], [0.6]], pilot)).toThrow(/two runs on one cold start/);
  });

  it('blocked design: Var(Δ) = 2(σ²_rl + σ²_eval)/(PR), df 2PR − P − 1, MDE with t quantiles', () => {
    const design = { coldStarts: 1, rlSeeds: 3, evalProblems: 100, evalSamples: 4, blocked: true };
    const { variance, df } = differenceVariance(components, design);
    expect(variance).toBeCloseTo((2 * 0.005) / 3, 12);
    expect(df).toBe(4);
    // t_{0.975,4} = 2.776445, t_{0.8,4} = 0.940965
    expect(minimumDetectableEffect(components, design, test)).toBeCloseTo(
      (2.776445 + 0.940965) * Math.sqrt(0.01 / 3),
      5,
    );
  });

  it('unblocked design: the cold-start term stays, the cold starts are the replicates', () => {
    const design = { coldStarts: 2, rlSeeds: 3, evalProblems: 100, evalSamples: 4, blocked: false };
    const { variance, df } = differenceVariance(components, design);
    expect(variance).toBeCloseTo(2 * (0.0175 / 2 + 0.005 / 6), 12);
    expect(df).toBe(2);
    // t_{0.975,2} = 4.302653, t_{0.8,2} = 1.060660
    expect(minimumDetectableEffect(components, design, test)).toBeCloseTo(
      (4.302653 + 1.06066) * Math.sqrt(variance),
      5,
    );
  });

  it('more evaluation problems lower the MDE; the seeds needed for an effect', () => {
    const base = { coldStarts: 1, rlSeeds: 3, evalSamples: 4, blocked: true };
    expect(minimumDetectableEffect(components, { ...base, evalProblems: 1000 }, test)).toBeLessThan(
      minimumDetectableEffect(components, { ...base, evalProblems: 100 }, test),
    );
    // Var(Δ) = 0.01/R: R = 9 gives (2.119905 + 0.864667)/30 = 0.0995 ≤ 0.1; R = 8 gives 0.1065.
    const design = { coldStarts: 1, evalProblems: 100, evalSamples: 4, blocked: true };
    expect(seedsNeeded(components, design, test, 0.1, 20)).toBe(9);
    expect(seedsNeeded(components, design, test, 0.001, 20)).toBeNull();
    expect(minimumDetectableEffect(components, { ...design, rlSeeds: 1 }, test)).toBeNaN();
  });
});
