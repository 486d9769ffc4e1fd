import { describe, expect, it } from 'vitest';
import { vcrlScore } from '../curricula/vcrl.ts';
import { normalizedGroupVariance, vcrlFilterSchema, vcrlKeep } from './vcrl-filter.ts';

describe('VCRL batch filter', () => {
  it("equals the paper's k(G−k)/(G(G−1)) / σ²_max (vcrlScore) for every 0/1 group, G = 2…16", () => {
    for (let G = 2; G <= 16; G++) {
      for (let k = 0; k <= G; k++) {
        const rewards = Array.from({ length: G }, (_, index) => (index < k ? 1 : 0));
        expect([G, k, normalizedGroupVariance(rewards)]).toEqual([G, k, expect.closeTo(vcrlScore(k, G), 12)]);
      }
    }
  });

  it('by hand: 1 of 4 → 3/4, 2 of 4 → 1, 1 of 3 → 2/3 (σ²_max = 1/3 for G = 3), partial credit on the same scale', () => {
    expect(normalizedGroupVariance([1, 0, 0, 0])).toBeCloseTo(0.75, 12);
    expect(normalizedGroupVariance([1, 1, 0, 0])).toBeCloseTo(1, 12);
    // G = 3, k = 1: σ² = 2/6 = 1/3; σ²_max = 4/12 = 1/3 → p = 1.
    expect(normalizedGroupVariance([1, 0, 0])).toBeCloseTo(1, 12);
    // [0.5, 0.5, 0, 0]: mean 0.25, Σ(x − μ)² = 4·0.0625 = 0.25, σ² = 0.25/3; σ²_max = 4/12 → p = 0.25.
    expect(normalizedGroupVariance([0.5, 0.5, 0, 0])).toBeCloseTo(0.25, 12);
    expect(normalizedGroupVariance([1])).toBe(0);
  });

  it('keeps a group iff p ≥ κ; off by default with κ = 0.3', () => {
    const keep = vcrlKeep(0.75);
    expect(keep({ rewards: [1, 0, 0, 0] })).toBe(true); // p = 0.75 exactly
    expect(keep({ rewards: [1, 0, 0, 0, 0, 0, 0, 0] })).toBe(false); // p = 4·7/64 = 0.4375
    expect(keep({ rewards: [1, 1, 1, 1] })).toBe(false);
    expect(vcrlFilterSchema.parse(undefined)).toEqual({ enabled: false, threshold: 0.3, maxRounds: 3 });
  });
});
