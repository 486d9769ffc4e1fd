import { describe, expect, it } from 'vitest';
import { ConfigError } from '../core/errors.ts';
import { Rng } from '../core/rng.ts';
import { outcome, testProblem } from '../testing/curricula/test-pool.ts';
import { botsBetaUpdate, createBots } from './bots.ts';

describe('bots', () => {
  it('posterior update: Beta(1,1), 6 of 8 correct, λ = 0.1, ρ = 0 → Beta(7, 3)', () => {
    const base = { alpha: 1, beta: 1, rollouts: 8, predicted: 0.5, discount: 0.1, implicitWeight: 0 };
    expect(botsBetaUpdate({ ...base, observed: 0.75 })).toEqual({ alpha: 7, beta: 3 });
    // Unobserved: only the discount toward the prior: 0.9·3 + 0.1 = 2.8.
    const decayed = botsBetaUpdate({ ...base, alpha: 3, beta: 1, observed: null });
    expect(decayed.alpha).toBeCloseTo(2.8, 12);
    expect(decayed.beta).toBeCloseTo(1, 12);
    // With ρ = 0.1 an unobserved problem also gets implicit pseudo-counts m·p̃ = 8·0.5 split by ρ.
    const implicit = botsBetaUpdate({ ...base, alpha: 3, observed: null, implicitWeight: 0.1 });
    expect(implicit.alpha).toBeCloseTo(2.7 + 0.1 + 0.4, 12);
    expect(implicit.beta).toBeCloseTo(0.9 + 0.1 + 0.4, 12);
  });

  it('picks the problems whose posterior mean is nearest the target pass rate', () => {
    const pool = ['solved', 'half', 'failed'].map((id) => testProblem(id));
    const selector = createBots(pool, { thompson: false, discount: 0 });
    selector.observe(0, [
      outcome(pool[0], [1, 1, 1, 1, 1, 1, 1, 1]), // Beta(9, 1): mean 0.9
      outcome(pool[1], [1, 1, 1, 1, 0, 0, 0, 0]), // Beta(5, 5): mean 0.5
      outcome(pool[2], [0, 0, 0, 0, 0, 0, 0, 1]), // Beta(2, 8): mean 0.2
    ]);
    expect(selector.estimatedPassRate(pool[1])).toBeCloseTo(0.5, 12);
    expect(selector.select(2, new Rng(1)).map((problem) => problem.id)).toEqual(['half', 'failed']);
  });

  it('interpolates implicit evidence between reference models and needs their pass rates', () => {
    const pool = [
      testProblem('a', { metadata: { weak: 0.2, strong: 0.6 } }),
      testProblem('b', { metadata: { weak: 0.0, strong: 1.0 } }),
    ];
    const selector = createBots(pool, {
      implicit: { weakKey: 'weak', strongKey: 'strong' },
      implicitWeight: 0.5,
    });
    // Observed a at 0.4 (= halfway between 0.2 and 0.6): κ = 0.2/(0.4 + 1e-6) ≈ 0.5, so p̃_b = 0.5.
    selector.observe(0, [outcome(pool[0], [1, 1, 0, 0, 0])]);
    expect(selector.metrics()['curriculum/capability']).toBeCloseTo(0.5, 5);
    // b: α = 0.9 + 0.1 + 0.5·5·0.5 = 2.25, β likewise: posterior mean 0.5.
    expect(selector.estimatedPassRate(pool[1])).toBeCloseTo(0.5, 5);
    expect(() =>
      createBots([testProblem('c')], { implicit: { weakKey: 'weak', strongKey: 'strong' } }),
    ).toThrow(ConfigError);
  });

  it('averages rewards as the authors (partial credit), not a > 0.5 threshold', () => {
    const pool = [testProblem('partial'), testProblem('mixed')];
    const selector = createBots(pool, { thompson: false, discount: 0 });
    selector.observe(0, [
      outcome(pool[0], [0.5, 0.5, 0.5, 0.5]), // mean 0.5: Beta(1 + 2, 1 + 2) → 0.5 (a threshold saw 0 of 4)
      outcome(pool[1], [1, 0.25, 0, 0.75]), // mean 0.5 as well (a threshold saw 2 of 4 by luck of 0.75)
    ]);
    expect(selector.estimatedPassRate(pool[0])).toBeCloseTo(0.5, 12);
    expect(selector.estimatedPassRate(pool[1])).toBeCloseTo(0.5, 12);
  });
});
