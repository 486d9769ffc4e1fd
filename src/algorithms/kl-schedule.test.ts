// KDRL's KL-coefficient annealing: linear from algorithm.kl.coefficient at step 1 to anneal.to at step S,
// then constant; no anneal leaves β alone.
import { describe, expect, it } from 'vitest';
import { klAnnealSchema, klCoefficientAt } from './kl-schedule.ts';

describe('klCoefficientAt', () => {
  const kl = { coefficient: 0.005, anneal: { to: 0.001 } };
  it('5e-3 → 1e-3 over 5 steps: 0.005, 0.004, 0.003, 0.002, 0.001, then 0.001', () => {
    const values = [1, 2, 3, 4, 5, 6, 9].map((step) => klCoefficientAt(kl, step, 5));
    [0.005, 0.004, 0.003, 0.002, 0.001, 0.001, 0.001].forEach((expected, i) => {
      expect(values[i]).toBeCloseTo(expected, 15);
    });
  });

  it('anneal.steps overrides train.steps; one step is already at the end; no anneal = the coefficient', () => {
    expect(klCoefficientAt({ coefficient: 0.005, anneal: { to: 0.001, steps: 3 } }, 2, 100)).toBeCloseTo(
      0.003,
      15,
    );
    expect(klCoefficientAt(kl, 1, 1)).toBe(0.001);
    expect(klCoefficientAt({ coefficient: 0.005 }, 7, 10)).toBe(0.005);
    // Upward too (from 0: the reference is loaded for it, setup.ts).
    expect(klCoefficientAt({ coefficient: 0, anneal: { to: 0.01 } }, 3, 5)).toBeCloseTo(0.005, 15);
  });

  it('refuses a negative end point, a zero span and unknown keys', () => {
    expect(klAnnealSchema.safeParse({ to: -1 }).success).toBe(false);
    expect(klAnnealSchema.safeParse({ to: 0.001, steps: 0 }).success).toBe(false);
    expect(klAnnealSchema.safeParse({ to: 0.001, step: 3 }).success).toBe(false);
  });
});
