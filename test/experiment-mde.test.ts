// experiments/lib/mde.ts: the MDE line every experiment README quotes (issue 28 item 2).
import { describe, expect, it } from 'vitest';
import { mdeLine, mdeOf, pairedDifference } from '../experiments/lib/mde.ts';

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
});
