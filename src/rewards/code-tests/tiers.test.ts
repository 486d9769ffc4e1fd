// TAROT tier formulas and schedules, checked against numbers worked out by hand.
import { describe, expect, it } from 'vitest';
import { aggregateTiers, allowedTiers, weightSets } from './tiers.ts';

const outcomes = [
  { tier: 'basic' as const, passed: 2, total: 2 },
  { tier: 'intermediate' as const, passed: 1, total: 2 },
  { tier: 'complex' as const, passed: 0, total: 1 },
  { tier: 'edge' as const, passed: 1, total: 3 },
];

describe('aggregateTiers', () => {
  it('per-test weighting with the var set is the authors’ weighted success rate', () => {
    // passed weight = .35*2 + .35*1 + .15*0 + .15*1 = 1.2; total = .35*2 + .35*2 + .15*1 + .15*3 = 2.0
    const result = aggregateTiers(outcomes, true, {
      aggregate: 'partial',
      weighting: 'per-test',
      weights: weightSets.var,
    });
    expect(result.reward).toBeCloseTo(0.6, 12);
    expect(result.passRate).toBeCloseTo(4 / 8, 12);
    expect(result.tierRates).toEqual({ basic: 1, intermediate: 0.5, complex: 0, edge: 1 / 3 });
  });

  it('uniform per-test weighting equals the plain fraction passed', () => {
    const result = aggregateTiers(outcomes, true, {
      aggregate: 'partial',
      weighting: 'per-test',
      weights: weightSets.uniform,
    });
    expect(result.reward).toBeCloseTo(0.5, 12);
  });

  it('per-tier weighting averages tier pass rates', () => {
    // .15*1 + .15*.5 + .35*0 + .35*(1/3) = .15 + .075 + .116666… = .341666…; weights sum to 1
    const result = aggregateTiers(outcomes, true, {
      aggregate: 'partial',
      weighting: 'per-tier',
      weights: weightSets['var-ascending'],
    });
    expect(result.reward).toBeCloseTo(0.15 + 0.075 + 0.35 / 3, 12);
  });

  it('renormalises over the tiers that ran', () => {
    // only basic (2/2) and edge (1/3) ran, var weights: (.35*2 + .15*1) / (.35*2 + .15*3) = .85/1.15
    const ran = [outcomes[0], outcomes[3]];
    const result = aggregateTiers(ran, true, {
      aggregate: 'partial',
      weighting: 'per-test',
      weights: weightSets.var,
    });
    expect(result.reward).toBeCloseTo(0.85 / 1.15, 12);
  });

  it("'all' is 1 only when every test passed", () => {
    const options = {
      aggregate: 'all' as const,
      weighting: 'per-test' as const,
      weights: weightSets.uniform,
    };
    expect(aggregateTiers(outcomes, true, options).reward).toBe(0);
    expect(aggregateTiers([{ tier: 'basic', passed: 3, total: 3 }], false, options).reward).toBe(1);
  });

  it('untiered problems ignore weights and report no tier rates', () => {
    const result = aggregateTiers([{ tier: 'basic', passed: 1, total: 4 }], false, {
      aggregate: 'partial',
      weighting: 'per-test',
      weights: weightSets.var,
    });
    expect(result).toEqual({ reward: 0.25, passRate: 0.25, tierRates: {} });
  });
});

describe('allowedTiers', () => {
  it('follows label_schedule thresholds 0.2 / 0.4 / 0.6', () => {
    expect([...allowedTiers('easy-to-hard', 0.1)]).toEqual(['basic']);
    expect([...allowedTiers('easy-to-hard', 0.2)]).toEqual(['basic', 'intermediate']);
    expect([...allowedTiers('easy-to-hard', 0.59)]).toEqual(['basic', 'intermediate', 'complex']);
    expect(allowedTiers('easy-to-hard', 0.6).size).toBe(4);
    expect([...allowedTiers('hard-first', 0)]).toEqual(['complex']);
    expect([...allowedTiers('hard-first', 0.3)]).toEqual(['complex', 'edge']);
    expect([...allowedTiers('hard-first', 0.5)]).toEqual(['intermediate', 'complex', 'edge']);
    expect(allowedTiers('hard-first', 2).size).toBe(4);
    expect(allowedTiers('easy-to-hard', undefined).size).toBe(4);
    expect(allowedTiers('all', 0).size).toBe(4);
  });
});
