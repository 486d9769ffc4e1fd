// experiments/lib/mde.ts: the MDE line every experiment README quotes (issue 28 item 2).
import { describe, expect, it } from 'vitest';
import {
  mdeLine,
  mdeOf,
  pairedCells,
  pairedDifference,
  pairedDifferences,
  signedDifference,
} from '../experiments/lib/mde.ts';

describe('experiment MDE', () => {
  it('is (t₀.₉₇₅ + t₀.₈ at 2n − 2 df) · s · √(2/n) with the SD pooled within arms', () => {
    // arms with within-arm SD exactly 0.01 (values m − 0.01, m, m + 0.01), 3 seeds: df 4 for the test
    const result = mdeOf({ a: [0.49, 0.5, 0.51], b: [0.69, 0.7, 0.71] });
    expect(result?.sd).toBeCloseTo(0.01, 12);
    expect(result?.df).toBe(4);
    // t(0.975, 4) = 2.7764451, t(0.8, 4) = 0.9409646 (tables)
    expect(result?.mde).toBeCloseTo((2.7764451 + 0.9409646) * 0.01 * Math.sqrt(2 / 3), 6);
  });

  it('ignores the spread between arms and arms of one seed, and says when nothing is estimable', () => {
    const wide = mdeOf({ a: [0, 0.02], b: [0.98, 1], c: [0.3] });
    expect(wide?.sd).toBeCloseTo(Math.SQRT1_2 * 0.02, 12);
    expect(wide?.seeds).toBe(2);
    expect(mdeOf({ a: [0.5], b: [0.7] })).toBeNull();
    expect(mdeLine('held-out pass@1', { a: [0.5] })).toContain('not estimable');
    expect(mdeLine('held-out pass@1', { a: [0.49, 0.5, 0.51], b: [0.7, 0.7, 0.7] })).toMatch(
      /two arms × 3 seeds.*over 2 arms, 4 df\): \*\*±0\.0\d\d\*\*/,
    );
  });

  it('pairs by block: the interval and MDE of differences use t at n − 1 df and sd / √n', () => {
    // differences with mean 0.02 and SD exactly 0.01 over 3 blocks: df 2
    const result = pairedDifference([0.01, 0.02, 0.03]);
    expect(result?.mean).toBeCloseTo(0.02, 12);
    expect(result?.sd).toBeCloseTo(0.01, 12);
    // t(0.975, 2) = 4.3026527, t(0.8, 2) = 1.0606602 (tables)
    expect(result?.half).toBeCloseTo(4.3026527 * (0.01 / Math.sqrt(3)), 6);
    expect(result?.mde).toBeCloseTo((4.3026527 + 1.0606602) * (0.01 / Math.sqrt(3)), 6);
    expect(pairedDifference([0.5])).toBeNull();
  });

  it('formats a paired row: the blocks both arms have, in order, then mean, interval and MDE', () => {
    const a = new Map([
      [2, 0.5],
      [3, 0.6],
      [4, 0.7],
    ]);
    const b = new Map([
      [4, 0.68],
      [2, 0.49],
      [3, 0.57],
      [5, 0.1],
    ]);
    const differences = pairedDifferences([2, 3, 4, 5], a, b);
    expect(differences.map((d) => Number(d.toFixed(12)))).toEqual([0.01, 0.03, 0.02]);
    const result = pairedDifference(differences);
    expect(pairedCells(differences)).toBe(
      `3 | +0.010, +0.030, +0.020 | +0.020 | [${signedDifference(0.02 - (result?.half ?? 0))}, ${signedDifference(0.02 + (result?.half ?? 0))}] | ±${result?.mde.toFixed(3)} (CI includes 0)`,
    );
    expect(pairedCells([0.1, 0.11, 0.12])).toMatch(
      /^3 \| \+0\.100, \+0\.110, \+0\.120 \| \+0\.110 \| \[\+0\.0\d\d, \+0\.1\d\d\] \| ±0\.0\d\d \(CI excludes 0\)$/,
    );
    expect(signedDifference(-0.0123)).toBe('−0.012');
    expect(pairedCells([0.1])).toBe('1 | +0.100 | — | — | —');
    expect(pairedCells([])).toBe('0 | — | — | — | —');
  });
});
