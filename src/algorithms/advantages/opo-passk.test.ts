// OPO and grpo-passk against values worked out by hand from the formulas of verl's
// compute_opo_outcome_advantage and compute_grpo_passk_outcome_advantage.
import { describe, expect, it } from 'vitest';
import { advantageEstimators } from './index.ts';

const opo = advantageEstimators.get('opo');
const passk = advantageEstimators.get('grpo-passk');

describe('opo (length-weighted baseline)', () => {
  it('rewards (1, 0, 1), lengths (2, 4, 6): b = (2 + 6)/12 = 2/3, A = (1/3, −2/3, 1/3)', () => {
    const { advantages, included } = opo.estimate([{ rewards: [1, 0, 1], lengths: [2, 4, 6] }]);
    expect(advantages[0][0]).toBeCloseTo(1 / 3, 12);
    expect(advantages[0][1]).toBeCloseTo(-2 / 3, 12);
    expect(advantages[0][2]).toBeCloseTo(1 / 3, 12);
    expect(included).toEqual([[true, true, true]]);
  });

  it('the length weighting matters: a long wrong sample pulls the baseline down', () => {
    // b = (1·1 + 9·0)/10 = 0.1, where the plain mean is 0.5
    const { advantages } = opo.estimate([{ rewards: [1, 0], lengths: [1, 9] }]);
    expect(advantages[0][0]).toBeCloseTo(0.9, 12);
    expect(advantages[0][1]).toBeCloseTo(-0.1, 12);
    // without lengths: the group mean
    expect(opo.estimate([{ rewards: [1, 0] }]).advantages[0]).toEqual([0.5, -0.5]);
    expect(() => opo.resolveOptions({ normalise: true })).toThrow(/unknown key 'normalise'/);
  });
});

describe('grpo-passk (only the best sample, by its margin over the second)', () => {
  it('rewards (1, 0, 0, 0.5): A_0 = 0.5 / (std + 1e-6) with the sample std 0.478714, the rest 0', () => {
    // mean 0.375; Σ(x − μ)² = 0.6875; /3 = 0.2291667; sqrt = 0.4787136
    const { advantages } = passk.estimate([{ rewards: [1, 0, 0, 0.5] }]);
    expect(advantages[0][0]).toBeCloseTo(0.5 / (Math.sqrt(0.6875 / 3) + 1e-6), 12);
    expect(advantages[0][0]).toBeCloseTo(1.044466, 5);
    expect(advantages[0].slice(1)).toEqual([0, 0, 0]);
  });

  it('binary rewards: only a group with exactly one correct sample has a gradient', () => {
    const { advantages } = passk.estimate(
      [{ rewards: [0, 1, 0, 0] }, { rewards: [1, 1, 0, 0] }, { rewards: [0, 0, 0, 0] }],
      { normaliseByStd: false },
    );
    expect(advantages).toEqual([
      [0, 1, 0, 0],
      [0, 0, 0, 0],
      [0, 0, 0, 0],
    ]);
  });
});
