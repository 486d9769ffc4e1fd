import { describe, expect, it } from 'vitest';
import {
  binIndex,
  brierScore,
  calibrationSummary,
  confidenceAuroc,
  expectedCalibrationError,
  reliabilityBins,
} from './calibration.ts';

// Hand-computed: squared errors 0.01, 0.64, 0.09, 0.49, 0 → Brier 1.23 / 5 = 0.246.
// 10 bins: bin 9 = {0.9 ✓, 1.0 ✓} → |0.95 − 1|·2/5 = 0.02; bin 8 = {0.8 ✗} → 0.8·1/5 = 0.16;
// bin 3 = {0.3 ✗, 0.3 ✓} → |0.3 − 0.5|·2/5 = 0.08; ECE = 0.26.
const pairs = [
  { confidence: 0.9, correct: true },
  { confidence: 0.8, correct: false },
  { confidence: 0.3, correct: false },
  { confidence: 0.3, correct: 1 },
  { confidence: 1, correct: true },
];

describe('calibration metrics', () => {
  it('Brier score by hand', () => {
    expect(brierScore(pairs)).toBeCloseTo(0.246, 12);
    expect(brierScore([{ confidence: 0.5, correct: true }])).toBeCloseTo(0.25, 12);
    expect(brierScore([])).toBeNaN();
  });

  it('AUROC by hand: correct {0.9, 0.3, 1} vs wrong {0.8, 0.3} → (1 + 1 + 0 + ½ + 1 + 1) / 6', () => {
    expect(confidenceAuroc(pairs)).toBeCloseTo(4.5 / 6, 12);
    const flat = [0, 1, 1, 0].map((correct) => ({ confidence: 0.6, correct }));
    expect(confidenceAuroc(flat)).toBe(0.5);
    const separated = [
      { confidence: 0.2, correct: false },
      { confidence: 0.7, correct: true },
      { confidence: 0.4, correct: false },
    ];
    expect(confidenceAuroc(separated)).toBe(1);
    expect(
      confidenceAuroc(separated.map(({ confidence, correct }) => ({ confidence, correct: !correct }))),
    ).toBe(0);
    expect(confidenceAuroc([{ confidence: 0.9, correct: true }])).toBeNaN();
    expect(calibrationSummary(pairs).auroc).toBeCloseTo(0.75, 12);
  });

  it('ECE with 10 equal-width bins by hand', () => {
    expect(expectedCalibrationError(pairs)).toBeCloseTo(0.26, 12);
  });

  it('ECE with 2 bins by hand', () => {
    // bin [0, 0.5): {0.3 ✗, 0.3 ✓} → 0.2·2/5 = 0.08; bin [0.5, 1]: {0.9 ✓, 0.8 ✗, 1 ✓} → |0.9 − 2/3|·3/5 = 0.14.
    expect(expectedCalibrationError(pairs, 2)).toBeCloseTo(0.22, 12);
  });

  it('a perfectly calibrated set has ECE 0 but Brier 0.25', () => {
    const half = [
      { confidence: 0.5, correct: true },
      { confidence: 0.5, correct: false },
    ];
    expect(expectedCalibrationError(half)).toBe(0);
    expect(brierScore(half)).toBeCloseTo(0.25, 12);
  });

  it('bins are left-closed; confidence 1 goes to the last bin', () => {
    expect(binIndex(0, 10)).toBe(0);
    expect(binIndex(0.1, 10)).toBe(1);
    expect(binIndex(0.0999, 10)).toBe(0);
    expect(binIndex(1, 10)).toBe(9);
    const bins = reliabilityBins(pairs);
    expect(bins).toHaveLength(10);
    expect(bins[9]).toMatchObject({ count: 2, meanConfidence: 0.95, accuracy: 1 });
    expect(bins[0].count).toBe(0);
    expect(bins[0].accuracy).toBeNaN();
  });

  it('summary and range checks', () => {
    const summary = calibrationSummary(pairs);
    expect(summary.count).toBe(5);
    expect(summary.meanConfidence).toBeCloseTo(0.66, 12);
    expect(summary.accuracy).toBeCloseTo(0.6, 12);
    expect(summary.ece).toBeCloseTo(0.26, 12);
    expect(() => brierScore([{ confidence: 1.5, correct: true }])).toThrow(RangeError);
    expect(() => brierScore([{ confidence: Number.NaN, correct: true }])).toThrow(RangeError);
    expect(() => reliabilityBins(pairs, 0)).toThrow(RangeError);
  });
});
