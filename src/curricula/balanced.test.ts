import { describe, expect, it } from 'vitest';
import { Rng } from '../core/rng.ts';
import { outcome, testProblem } from '../testing/curricula/test-pool.ts';
import { balancedEligible, createBalanced } from './balanced.ts';

const band = { low: 0.25, high: 0.75, recheckAfter: 100 };

describe('balanced', () => {
  it('keeps unseen and in-band problems, skips out-of-band ones until a recheck is due', () => {
    expect(balancedEligible(null, 0, 5, band)).toBe(true);
    expect(balancedEligible(0.5, 0, 5, band)).toBe(true);
    expect(balancedEligible(0.25, 0, 5, band)).toBe(true);
    expect(balancedEligible(1, 4, 5, band)).toBe(false);
    expect(balancedEligible(0, 4, 104, band)).toBe(true);
  });

  it('never selects a problem known to be solved', () => {
    const pool = Array.from({ length: 6 }, (_, i) => testProblem(`p${i}`));
    const selector = createBalanced(pool, {});
    selector.observe(0, [outcome(pool[0], [1, 1, 1, 1]), outcome(pool[1], [0, 0, 0, 0])]);
    const rng = new Rng(3);
    for (let round = 0; round < 5; round++) {
      const ids = selector.select(4, rng).map((problem) => problem.id);
      expect(ids).not.toContain('p0');
      expect(ids).not.toContain('p1');
    }
  });
});
