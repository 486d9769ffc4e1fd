// GAE and whitening against values worked out by hand from verl's compute_gae_advantage_return and
// masked_whiten (δ_t = r_t + γV_{t+1} − V_t, A_t = δ_t + γλA_{t+1}, R = A + V; (x − mean)/sqrt(var + 1e-8)).
import { describe, expect, it } from 'vitest';
import { gae, whiten } from './gae.ts';
import { advantageEstimators } from './index.ts';

describe('gae', () => {
  it('γ = λ = 1 (verl defaults): A_t = r − V_t and every return is r', () => {
    const { advantages, returns } = gae(1, [0.5, 0.2, 0.8], 1, 1);
    for (const [t, expected] of [0.5, 0.8, 0.2].entries()) expect(advantages[t]).toBeCloseTo(expected, 12);
    for (const value of returns) expect(value).toBeCloseTo(1, 12);
  });

  it('γ 0.9, λ 0.5: δ = (−0.32, 0.52, 0.2), A = (−0.0455, 0.61, 0.2), R = (0.4545, 0.81, 1)', () => {
    const { advantages, returns } = gae(1, [0.5, 0.2, 0.8], 0.9, 0.5);
    for (const [t, expected] of [-0.0455, 0.61, 0.2].entries())
      expect(advantages[t]).toBeCloseTo(expected, 12);
    for (const [t, expected] of [0.4545, 0.81, 1].entries()) expect(returns[t]).toBeCloseTo(expected, 12);
  });

  it('whitens over every token of the batch with the Bessel-corrected variance', () => {
    // mean 2, variance (1 + 0 + 1)/2 = 1
    const [first, second] = whiten([[1, 2], [3]]);
    expect(first[0]).toBeCloseTo(-1 / Math.sqrt(1 + 1e-8), 12);
    expect(first[1]).toBeCloseTo(0, 12);
    expect(second[0]).toBeCloseTo(1 / Math.sqrt(1 + 1e-8), 12);
    expect(whiten([[4]])).toEqual([[0]]);
  });

  it("the registered 'gae' estimator is the V ≡ 0 fallback: A = r, groups of one allowed", () => {
    const estimator = advantageEstimators.get('gae');
    expect(() => estimator.validate(1)).not.toThrow();
    expect(estimator.estimate([{ rewards: [1, 0] }, { rewards: [0.5] }]).advantages).toEqual([[1, 0], [0.5]]);
  });
});
