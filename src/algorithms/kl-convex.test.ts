// ReMix's KL-Convex term by hand: one token, logp −1, reference −2, precedent −0.5, β 0.1, w 0.25, k3
// (∂k3/∂logp = 1 − exp(ref − logp)), token-mean over one token (c = 1):
//   to the base:      0.1·0.75·(1 − e^−1)  = 0.0474090  (k3 = e^−1 − 1 + 1   = 0.3678794)
//   to the precedent: 0.1·0.25·(1 − e^0.5) = −0.0162180 (k3 = e^0.5 − 1 − 0.5 = 0.1487213)
//   weight 0.0311910, penalty 0.1·(0.75·0.3678794 + 0.25·0.1487213) = 0.0313090.
import { describe, expect, it } from 'vitest';
import { klLossPenalty } from './kl.ts';
import { klConvexPenalty } from './kl-convex.ts';

const sequence = { logprobs: [-1], refLogprobs: [-2], precedentLogprobs: [-0.5], mask: [1] };
const options = { estimator: 'k3', coefficient: 0.1, aggregation: 'token-mean' };

describe('klConvexPenalty', () => {
  it('β·[(1 − w)·KL(π‖ref) + w·KL(π‖prec)] by hand', () => {
    const result = klConvexPenalty([sequence], 0.25, options);
    expect(result.weights[0][0]).toBeCloseTo(0.031191, 6);
    expect(result.loss).toBeCloseTo(0.031309, 6);
    expect(result.metrics['losses/kl']).toBeCloseTo(0.3678794, 6);
    expect(result.metrics['losses/kl_precedent']).toBeCloseTo(0.1487213, 6);
  });

  it('w 0 is the plain KL term exactly; w 1 is the KL to the precedent alone', () => {
    expect(klConvexPenalty([sequence], 0, options)).toEqual(klLossPenalty([sequence], options));
    const towards = klConvexPenalty([sequence], 1, options);
    expect(towards.weights[0][0]).toBeCloseTo(0.1 * (1 - Math.exp(0.5)), 12);
    expect(() => klConvexPenalty([sequence], 1.5, options)).toThrow(RangeError);
  });
});
