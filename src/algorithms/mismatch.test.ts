// Sampler/trainer mismatch metrics and rollout-correction weights, against numbers worked out by hand from
// the formulas in mismatch.ts (Δ = logp_trainer − logp_sampler, ρ = exp Δ).
import { describe, expect, it } from 'vitest';
import {
  type MismatchSequence,
  mismatchMetrics,
  type RolloutCorrection,
  rolloutCorrectionSchema,
  rolloutCorrectionWeights,
} from './mismatch.ts';

const ln = Math.log;

// Sequence a: Δ = (0, −1, ln 4) → ρ = (1, e⁻¹ ≈ 0.368, 4).
// Sequence b: Δ = (ln ½, −4) with the second token masked out (it must not count anywhere).
const sequences: MismatchSequence[] = [
  { trainerLogprobs: [-0.5, -2, -1 + ln(4)], samplerLogprobs: [-0.5, -1, -1] },
  { trainerLogprobs: [-0.2 + ln(0.5), -5], samplerLogprobs: [-0.2, -1], mask: [1, 0] },
];

const options = (overrides: Partial<RolloutCorrection>): RolloutCorrection =>
  rolloutCorrectionSchema.parse(overrides);

describe('mismatchMetrics', () => {
  it('4 counted tokens with Δ = 0, −1, ln 4, ln ½: |Δ|, k1, k3, share outside [1/3, 3], max', () => {
    const metrics = mismatchMetrics(sequences, { clipMax: 3, clipMin: null });
    expect(metrics['mismatch/tokens']).toBe(4);
    // |Δ| = 0 + 1 + ln 4 + ln 2 = 1 + 3 ln 2.
    expect(metrics['mismatch/abs_diff_mean']).toBeCloseTo((1 + 3 * ln(2)) / 4, 12);
    expect(metrics['mismatch/abs_diff_max']).toBeCloseTo(ln(4), 12);
    // k1 = −Δ: 0 + 1 − ln 4 + ln 2 = 1 − ln 2.
    expect(metrics['mismatch/k1_kl']).toBeCloseTo((1 - ln(2)) / 4, 12);
    // k3 = ρ − 1 − ln ρ: 0, e⁻¹ − 1 + 1 = e⁻¹, 4 − 1 − ln 4, ½ − 1 + ln 2.
    const k3 = Math.exp(-1) + (3 - ln(4)) + (-0.5 + ln(2));
    expect(metrics['mismatch/k3_kl']).toBeCloseTo(k3 / 4, 12);
    // Outside [1/3, 3]: only ρ = 4 (e⁻¹ ≈ 0.368 and ½ are inside).
    expect(metrics['mismatch/frac_over']).toBe(1 / 4);
  });

  it('frac_over uses clipMin when given: [0.4, 3] also catches e⁻¹', () => {
    expect(mismatchMetrics(sequences, { clipMax: 3, clipMin: 0.4 })['mismatch/frac_over']).toBe(2 / 4);
  });

  it('identical log-probs: every metric is exactly 0; no sequences: 0 tokens', () => {
    const same = [{ trainerLogprobs: [-1, -0.3], samplerLogprobs: [-1, -0.3] }];
    const metrics = mismatchMetrics(same, { clipMax: 3, clipMin: null });
    for (const key of ['abs_diff_mean', 'abs_diff_max', 'k1_kl', 'k3_kl', 'frac_over']) {
      expect(metrics[`mismatch/${key}`], key).toBe(0);
    }
    expect(mismatchMetrics([], { clipMax: 3, clipMin: null })['mismatch/tokens']).toBe(0);
  });

  it('a huge gap stays finite: k3 of Δ = 50 uses Δ clamped to 20', () => {
    const metrics = mismatchMetrics([{ trainerLogprobs: [0], samplerLogprobs: [-50] }], {
      clipMax: 3,
      clipMin: null,
    });
    expect(metrics['mismatch/k3_kl']).toBeCloseTo(Math.exp(20) - 21, 0);
    expect(metrics['mismatch/abs_diff_max']).toBe(50);
  });

  it('refuses sequences whose arrays differ in length, naming the sequence', () => {
    expect(() =>
      mismatchMetrics([sequences[0], { trainerLogprobs: [-1], samplerLogprobs: [-1, -2] }], {
        clipMax: 3,
        clipMin: null,
      }),
    ).toThrow(/mismatch sequence 1: trainerLogprobs 1, samplerLogprobs 2/);
  });
});

describe('rolloutCorrectionWeights', () => {
  // Δ = (0, −1, ln 4, ln ⅛, masked): ρ = (1, e⁻¹, 4, ⅛); Σ Δ over the counted tokens = −1 + ln ½.
  const sequence: MismatchSequence = {
    trainerLogprobs: [-1, -2, -2 + ln(4), -1 + ln(1 / 8), -9],
    samplerLogprobs: [-1, -1, -2, -1, -1],
    mask: [1, 1, 1, 1, 0],
  };
  const e = Math.exp(-1);
  const weights = (overrides: Partial<RolloutCorrection>) =>
    rolloutCorrectionWeights(sequence, options(overrides));
  const close = (actual: number[], expected: number[]) => {
    expect(actual).toHaveLength(expected.length);
    for (const [t, value] of actual.entries()) expect(value, `token ${t}`).toBeCloseTo(expected[t], 12);
  };

  it('off: 1 on counted tokens, 0 on masked ones', () => {
    expect(weights({ mode: 'off' })).toEqual([1, 1, 1, 1, 0]);
  });

  it('token-truncate (TIS): min(ρ, 3); with clipMin ¼ also max(ρ, ¼)', () => {
    close(weights({ mode: 'token-truncate' }), [1, e, 3, 1 / 8, 0]);
    close(weights({ mode: 'token-truncate', clipMin: 0.25 }), [1, e, 3, 0.25, 0]);
  });

  it('token-mask (MIS): ρ inside the bounds, exactly 0 outside', () => {
    close(weights({ mode: 'token-mask' }), [1, e, 0, 1 / 8, 0]);
    const bounded = weights({ mode: 'token-mask', clipMin: 1 / 3 });
    close(bounded, [1, e, 0, 0, 0]);
    expect(bounded[2]).toBe(0);
    expect(bounded[3]).toBe(0);
  });

  it('sequence levels: ρ_seq = exp(Σ Δ) = e⁻¹/2 on every counted token (product, not geometric mean)', () => {
    const rho = e / 2;
    close(weights({ mode: 'sequence-truncate' }), [rho, rho, rho, rho, 0]);
    close(weights({ mode: 'sequence-truncate', clipMin: 0.25 }), [0.25, 0.25, 0.25, 0.25, 0]);
    close(weights({ mode: 'sequence-mask' }), [rho, rho, rho, rho, 0]);
    expect(weights({ mode: 'sequence-mask', clipMin: 1 / 3 })).toEqual([0, 0, 0, 0, 0]);
    // A sequence whose ratios cancel (ln 4 + ln ¼ = 0) keeps weight 1 under sequence-mask with [1/3, 3].
    const cancelling = rolloutCorrectionWeights(
      { trainerLogprobs: [-1 + ln(4), -1 + ln(0.25)], samplerLogprobs: [-1, -1] },
      options({ mode: 'sequence-mask', clipMin: 1 / 3 }),
    );
    close(cancelling, [1, 1]);
  });
});

describe('rolloutCorrectionSchema', () => {
  it('defaults: off, clipMax 3, no clipMin (TRL)', () => {
    expect(rolloutCorrectionSchema.parse(undefined)).toEqual({ mode: 'off', clipMax: 3, clipMin: null });
  });

  it('refuses clipMin ≥ clipMax and an unknown mode', () => {
    expect(rolloutCorrectionSchema.safeParse({ mode: 'token-mask', clipMin: 3 }).success).toBe(false);
    expect(rolloutCorrectionSchema.safeParse({ mode: 'token' }).success).toBe(false);
  });
});
