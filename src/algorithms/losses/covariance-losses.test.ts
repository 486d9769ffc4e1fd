// Clip-Cov and KL-Cov against numbers worked out by hand from the formulas of verl's
// compute_policy_loss_clip_cov and compute_policy_loss_kl_cov: cov_t = (A_t − mean A)(logp_t − mean logp)
// over the batch's loss tokens; Clip-Cov zeroes max(1, ⌊ratio·N⌋) random candidates with lb < cov < ub
// that PPO did not clip; KL-Cov adds coef·|log r| to the top max(1, ⌊ratio·N⌋) by covariance.
import { describe, expect, it } from 'vitest';
import { policyLosses } from './index.ts';
import type { LossSequence } from './policy-loss.ts';
import { tokenCovariances } from './token-covariance.ts';

const clipCov = policyLosses.get('clip-cov');
const klCov = policyLosses.get('kl-cov');

/**
 * Two sequences, logp (−0.5, −3), A = +1 and −1, log-ratio `l` on every token: mean A = 0, mean logp =
 * −1.75, so cov = (1.25, −1.25) and (−1.25, 1.25): token 0 of sequence 0 and token 1 of sequence 1 lie in
 * Clip-Cov's (1, 5).
 */
function batch(l = 0): LossSequence[] {
  return [1, -1].map((advantage) => ({
    logprobs: [-0.5, -3],
    oldLogprobs: [-0.5 - l, -3 - l],
    advantages: advantage,
    mask: [1, 1],
  }));
}

describe('token covariance', () => {
  it('is (A − mean A)(logp − mean logp) over the loss tokens of the batch', () => {
    expect(tokenCovariances(batch()).map((place) => place.covariance)).toEqual([1.25, -1.25, -1.25, 1.25]);
  });
});

describe('clip-cov', () => {
  it('at the default ratio stops exactly one of the two candidates; every other token is PPO at r = 1', () => {
    const result = clipCov.compute(batch());
    const flat = result.weights.flat();
    // token-mean over 4 tokens: −A/4 unless stopped
    const expected = [-0.25, -0.25, 0.25, 0.25];
    const stopped = flat.flatMap((weight, k) => (weight === 0 ? [k] : []));
    expect(stopped).toHaveLength(1);
    expect([0, 3]).toContain(stopped[0]);
    flat.forEach((weight, k) => {
      if (k !== stopped[0]) expect(weight).toBeCloseTo(expected[k], 12);
    });
    expect(result.metrics['losses/cov_clipfrac']).toBe(1 / 4);
    // the draw is a function of the batch: the same batch, the same token
    expect(clipCov.compute(batch()).weights).toEqual(result.weights);
  });

  it('ratio 0.5 stops both candidates, and never a token PPO already clipped', () => {
    const both = clipCov.compute(batch(), { ratio: 0.5 });
    expect(both.weights[0][0]).toBe(0);
    expect(both.weights[1][1]).toBe(0);
    expect(both.loss).toBeCloseTo((-1 + 1) / 4, 12);
    // r = e^0.3 = 1.35 > 1.2 on every token. A = +1: both tokens of sequence 0 are PPO-clipped (−1.2, weight
    // 0), so (0, 0) is no candidate. A = −1: unclipped (−A·r = 1.35 > 1.2); (1, 1) is the only candidate
    // left and is stopped.
    const clipped = clipCov.compute(batch(0.3), { ratio: 0.5 });
    expect(clipped.metrics['losses/clipfrac_high']).toBe(2 / 4);
    expect(clipped.metrics['losses/cov_clipfrac']).toBe(1 / 4);
    const r = Math.exp(0.3);
    expect(clipped.loss).toBeCloseTo((-1.2 - 1.2 + r + 0) / 4, 12);
    expect(clipped.weights[0]).toEqual([0, 0]);
    expect(clipped.weights[1][0]).toBeCloseTo(r / 4, 12);
    expect(clipped.weights[1][1]).toBe(0);
  });
});

describe('kl-cov', () => {
  it('penalises the largest covariance (a tie goes to the earlier token): −A·r + 0.1·|l|', () => {
    const l = 0.1;
    const r = Math.exp(l);
    const result = klCov.compute(batch(l));
    // (0, 0) and (1, 1) tie at cov 1.25; the earlier, (0, 0), is penalised
    expect(result.weights[0][0]).toBeCloseTo((-r + 0.1) / 4, 12);
    expect(result.weights[0][1]).toBeCloseTo(-r / 4, 12);
    expect(result.weights[1][0]).toBeCloseTo(r / 4, 12);
    expect(result.weights[1][1]).toBeCloseTo(r / 4, 12);
    expect(result.loss).toBeCloseTo((-r + 0.1 * l - r + r + r) / 4, 12);
    expect(result.metrics['losses/cov_selected_frac']).toBe(1 / 4);
  });

  it('no clip: a token far outside PPO range keeps −A·r; on-policy the |l| penalty has slope 0', () => {
    const far = klCov.compute(batch(1), { ratio: 0.5 });
    expect(far.weights[0][1]).toBeCloseTo(-Math.E / 4, 12);
    expect(klCov.compute(batch(0), { ratio: 0.5 }).weights[0][0]).toBeCloseTo(-0.25, 12);
    expect(() => klCov.resolveOptions({ klCovRatio: 0.1 })).toThrow(
      /unknown key 'klCovRatio'.*ratio, coefficient/,
    );
  });
});
