// The entropy bonus's weights by hand (src/algorithms/entropy.ts), the config refusal of 'exact' over a
// backend without the full distribution, and the sampled estimator's expectation: on a categorical
// distribution, the mean of its per-sample gradient over exact draws is −∇H.
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../core/errors.ts';
import { rlConfigSchema } from '../training/rl/config.ts';
import { validateRlConfig } from '../training/rl/setup.ts';
import { exactEntropyWeights, meanEntropy, sampledEntropyWeights } from './entropy.ts';

describe('entropy bonus weights', () => {
  it("exact: e = −β·c with the loss's aggregation (token-mean over 3 tokens, β 0.3: −0.1 each)", () => {
    const masks = [
      [1, 1],
      [0, 1],
    ];
    const tokenMean = exactEntropyWeights(masks, 0.3, { aggregation: 'token-mean' }).flat();
    [-0.1, -0.1, 0, -0.1].forEach((expected, k) => {
      expect(tokenMean[k]).toBeCloseTo(expected, 12);
    });
    // seq-mean-token-mean: c = 1/(B·|y_i|)
    const weights = exactEntropyWeights([[1, 1], [1]], 0.4, { aggregation: 'seq-mean-token-mean' });
    expect(weights[0][0]).toBeCloseTo(-0.1, 12);
    expect(weights[1][0]).toBeCloseTo(-0.2, 12);
  });

  it('sampled: β·c·r·logp on each token, and the Monte-Carlo entropy −mean(logp)', () => {
    const { weights, entropy } = sampledEntropyWeights(
      [{ logprobs: [-1, -2], oldLogprobs: [-1, -2.5], mask: [1, 1] }],
      0.5,
      { aggregation: 'token-mean' },
    );
    expect(weights[0][0]).toBeCloseTo(0.5 * 0.5 * 1 * -1, 12);
    expect(weights[0][1]).toBeCloseTo(0.5 * 0.5 * Math.exp(0.5) * -2, 12);
    expect(entropy).toBeCloseTo(1.5, 12);
    expect(meanEntropy([[0.2, 0.4, 9]], [[1, 1, 0]])).toBeCloseTo(0.3, 12);
  });

  it('sampled: its expectation over y ∼ π is the gradient of −H (a 3-way softmax, exact sum over y)', () => {
    // π = softmax(z); the estimator's weight on logp(y) is w(y) = logp(y) (β = c = r = 1), so its gradient
    // in z is Σ_y π(y)·w(y)·∇_z logp(y), which must equal ∇_z(−H).
    const z = [0.3, -0.5, 1.1];
    const softmax = (x: number[]) => {
      const m = Math.max(...x);
      const e = x.map((v) => Math.exp(v - m));
      const s = e.reduce((a, b) => a + b, 0);
      return e.map((v) => v / s);
    };
    const p = softmax(z);
    const estimate = z.map((_, k) =>
      p.reduce((sum, py, y) => sum + py * Math.log(py) * ((y === k ? 1 : 0) - p[k]), 0),
    );
    const negEntropy = (x: number[]) => softmax(x).reduce((sum, q) => sum + q * Math.log(q), 0);
    const h = 1e-6;
    z.forEach((_, k) => {
      const up = z.map((v, j) => (j === k ? v + h : v));
      const down = z.map((v, j) => (j === k ? v - h : v));
      expect(estimate[k]).toBeCloseTo((negEntropy(up) - negEntropy(down)) / (2 * h), 8);
    });
  });

  it("refuses 'exact' over a Tinker backend at config time; 'sampled' is accepted", () => {
    const embedded = rlConfigSchema.parse({
      tasks: [{ task: 'addition', difficulties: [1] }],
      init: { checkpoint: 'examples/checkpoints/demo-cold' },
      train: { steps: 1, learningRate: 1e-4 },
    });
    const config = (estimator: 'exact' | 'sampled') =>
      ({
        ...embedded,
        policy: {
          ...embedded.policy,
          backend: 'tinker',
          tinker: { url: 'http://127.0.0.1:1', baseModel: 'demo' },
        },
        algorithm: { ...embedded.algorithm, entropy: { coefficient: 0.01, estimator } },
      }) as typeof embedded;
    expect(() => validateRlConfig(config('exact'))).toThrow(ConfigError);
    expect(() => validateRlConfig(config('exact'))).toThrow(/needs the full next-token distribution/);
    expect(() => validateRlConfig(config('sampled'))).not.toThrow(/full next-token distribution/);
    expect(() =>
      rlConfigSchema.parse({ ...embedded, algorithm: { entropy: { coefficient: 0.1, estimator: 'mean' } } }),
    ).toThrow(/exact|sampled/);
  });
});
