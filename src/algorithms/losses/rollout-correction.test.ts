// The rollout correction as a loss option (policy-loss.ts + ../mismatch.ts): its weight multiplies each
// token's term, so the per-token weights the loss hands the backend must still be ∂L/∂logp of the loss
// value it reports (central finite differences over the current log-probs), equal ρ-weighted copies of the
// uncorrected weights (by hand), and be exactly 0 on masked tokens.
import { describe, expect, it } from 'vitest';
import { policyLosses } from './index.ts';
import type { LossSequence } from './policy-loss.ts';

const ln = Math.log;

// Two sampled completions. oldLogprobs are the trainer's (old-logprob pass), samplerLogprobs the
// sampler's; Δ = old − sampler per token:
//   sequence 0: Δ = (0, ln 5, −0.1)     ρ = (1, 5, 0.905)        A = 1
//   sequence 1: Δ = (ln ¼, 0.2)         ρ = (0.25, 1.221)        A = −0.5
// The current log-probs sit a little away from old (PPO ratios 0.96–1.42, none at a clip boundary, so
// the loss is differentiable where the finite differences probe it). CISPO is left out: its reported
// value is a stop-gradient surrogate whose derivative is not its weight.
const old = [
  [-1.2, -0.4, -2.0],
  [-0.7, -1.5],
];
const deltas = [
  [0, ln(5), -0.1],
  [ln(0.25), 0.2],
];
const currentOffsets = [
  [0.05, -0.03, 0.09],
  [-0.04, 0.35],
];
const advantages = [1, -0.5];

function lossSequences(current: number[][], offPolicy?: boolean[][]): LossSequence[] {
  return old.map((row, i) => ({
    logprobs: current[i],
    oldLogprobs: row,
    samplerLogprobs: row.map((value, t) => value - deltas[i][t]),
    advantages: advantages[i],
    mask: row.map(() => 1),
    offPolicy: offPolicy?.[i],
  }));
}
const current = old.map((row, i) => row.map((value, t) => value + currentOffsets[i][t]));

/** Central differences of the reported loss with respect to each current log-prob. */
function numericWeights(loss: string, options: unknown, offPolicy?: boolean[][]): number[][] {
  const h = 1e-6;
  const policyLoss = policyLosses.get(loss);
  return current.map((row, i) =>
    row.map((_, t) => {
      const at = (delta: number) => {
        const moved = current.map((r) => [...r]);
        moved[i][t] += delta;
        return policyLoss.compute(lossSequences(moved, offPolicy), options).loss;
      };
      return (at(h) - at(-h)) / (2 * h);
    }),
  );
}

/** Every entry of `actual` within `tolerance` of `expected`, naming the entry that is not. */
function expectWithin(actual: number[][], expected: number[][], tolerance: number): void {
  expect(actual.map((row) => row.length)).toEqual(expected.map((row) => row.length));
  for (const [i, row] of actual.entries()) {
    for (const [t, value] of row.entries()) {
      expect(Math.abs(value - expected[i][t]), `${i},${t}: ${value} vs ${expected[i][t]}`).toBeLessThan(
        tolerance,
      );
    }
  }
}

describe('rolloutCorrection inside the policy losses', () => {
  const cases: [string, Record<string, unknown>][] = [
    ['importance-sampling', { rolloutCorrection: { mode: 'token-truncate', clipMax: 2 } }],
    ['importance-sampling', { rolloutCorrection: { mode: 'sequence-truncate', clipMax: 3 } }],
    ['ppo-clip', { rolloutCorrection: { mode: 'token-mask', clipMin: 1 / 3 } }],
    ['ppo-clip', { aggregation: 'seq-mean-token-mean', rolloutCorrection: { mode: 'sequence-mask' } }],
    [
      'importance-sampling',
      {
        aggregation: 'seq-mean-token-sum-norm',
        tokenSumNormaliser: 8,
        rolloutCorrection: { mode: 'token-mask', clipMin: 0.5, clipMax: 4 },
      },
    ],
  ];
  it.each(cases)('%s %j: the weights are the finite-difference gradient of the loss', (loss, options) => {
    const result = policyLosses.get(loss).compute(lossSequences(current), options);
    const numeric = numericWeights(loss, options);
    expectWithin(result.weights, numeric, 1e-7);
  });

  it('importance-sampling on-policy, token-mean over 5 tokens: w = −A·ρ̃/5, by hand', () => {
    const onPolicy = lossSequences(old);
    const is = policyLosses.get('importance-sampling');
    const off = is.compute(onPolicy, {}).weights;
    expect(off).toEqual([
      [-1 / 5, -1 / 5, -1 / 5],
      [0.5 / 5, 0.5 / 5],
    ]);
    // token-truncate at 2: ρ̃ = (1, 2, e^−0.1 | 0.25, e^0.2).
    const truncated = is.compute(onPolicy, { rolloutCorrection: { mode: 'token-truncate', clipMax: 2 } });
    const expected = [
      [-1 / 5, -2 / 5, -Math.exp(-0.1) / 5],
      [(0.5 * 0.25) / 5, (0.5 * Math.exp(0.2)) / 5],
    ];
    expectWithin(truncated.weights, expected, 1e-12);
    expect(truncated.metrics['mismatch/is_weight_mean']).toBeCloseTo(
      (1 + 2 + Math.exp(-0.1) + 0.25 + Math.exp(0.2)) / 5,
      12,
    );
    expect(truncated.metrics['mismatch/masked_frac']).toBe(0);
    // token-mask on [1/3, 3]: ρ = 5 and ¼ are dropped (exactly 0); the others keep ρ; the token-mean
    // normaliser still counts all 5 tokens (as TRL, whose completion mask is unchanged).
    const masked = is.compute(onPolicy, { rolloutCorrection: { mode: 'token-mask', clipMin: 1 / 3 } });
    expect(masked.weights[0][1]).toBe(0);
    expect(masked.weights[1][0]).toBe(0);
    expect(masked.weights[0][0]).toBeCloseTo(-1 / 5, 12);
    expect(masked.weights[0][2]).toBeCloseTo(-Math.exp(-0.1) / 5, 12);
    expect(masked.weights[1][1]).toBeCloseTo((0.5 * Math.exp(0.2)) / 5, 12);
    expect(masked.metrics['mismatch/masked_frac']).toBe(2 / 5);
    // Off: the loss reports no mismatch metrics (the RL step fills in the neutral values).
    expect(is.compute(onPolicy, {}).metrics['mismatch/masked_frac']).toBeUndefined();
  });

  it('sequence-mask drops sequence 0 whole (ρ_seq = 5·e^−0.1 ≈ 4.52 > 3) and keeps sequence 1 (ρ_seq ≈ 0.31)', () => {
    const weights = policyLosses
      .get('importance-sampling')
      .compute(lossSequences(old), { rolloutCorrection: { mode: 'sequence-mask' } }).weights;
    expect(weights[0]).toEqual([0, 0, 0]);
    const rho = 0.25 * Math.exp(0.2);
    expect(weights[1][0]).toBeCloseTo((0.5 * rho) / 5, 12);
    expect(weights[1][1]).toBeCloseTo((0.5 * rho) / 5, 12);
  });

  it('policy-shaping: an expert (offPolicy) token keeps its term and stays out of the sequence ratio', () => {
    const offPolicy = [
      [false, true, false],
      [false, false],
    ];
    const shaping = policyLosses.get('policy-shaping');
    const options = { rolloutCorrection: { mode: 'sequence-mask', clipMin: 1 / 3 } };
    const plain = shaping.compute(lossSequences(current, offPolicy), {}).weights;
    const corrected = shaping.compute(lossSequences(current, offPolicy), options).weights;
    // Sequence 0 without the expert token: Σ Δ = 0 − 0.1 → ρ_seq = e^−0.1, kept with weight e^−0.1.
    expect(corrected[0][1]).toBe(plain[0][1]);
    expect(corrected[0][0]).toBeCloseTo(plain[0][0] * Math.exp(-0.1), 12);
    expect(corrected[0][2]).toBeCloseTo(plain[0][2] * Math.exp(-0.1), 12);
    // Sequence 1: ρ_seq = ¼·e^0.2 ≈ 0.31 < 1/3, dropped.
    expect(corrected[1]).toEqual([0, 0]);
    const numeric = numericWeights('policy-shaping', options, offPolicy);
    expectWithin(corrected, numeric, 1e-7);
  });

  it('a correction without the sampler log-probs is an error naming the sequence', () => {
    const sequences = lossSequences(current).map(({ samplerLogprobs, ...rest }) => rest);
    expect(() =>
      policyLosses.get('ppo-clip').compute(sequences, { rolloutCorrection: { mode: 'token-mask' } }),
    ).toThrow(/sequence 0: rolloutCorrection 'token-mask' needs samplerLogprobs/);
  });

  it('a misspelt correction key names it and lists the allowed ones', () => {
    expect(() =>
      policyLosses.get('ppo-clip').resolveOptions({ rolloutCorrection: { mode: 'token-mask', cap: 2 } }),
    ).toThrow(/unknown key 'cap' at rolloutCorrection; allowed: mode, clipMax, clipMin/);
  });
});
