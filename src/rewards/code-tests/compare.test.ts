// Comparison modes against hand-worked cases, including LiveCodeBench's own examples (exact decimal equality,
// line-count rule) and Python's math.isclose semantics for the float mode.
import { describe, expect, it } from 'vitest';
import { canonicalDecimal, compareJson, compareOutput } from './compare.ts';

const tolerance = { relTol: 1e-6, absTol: 1e-6 };

describe('canonicalDecimal', () => {
  it('maps numerically equal decimals to one string', () => {
    expect(canonicalDecimal('1.50')).toBe('15e-1');
    expect(canonicalDecimal('001.5')).toBe('15e-1');
    expect(canonicalDecimal('15e-1')).toBe('15e-1');
    expect(canonicalDecimal('1500')).toBe('15e2');
    expect(canonicalDecimal('-0.0')).toBe('0');
    expect(canonicalDecimal('+2')).toBe('2e0');
    expect(canonicalDecimal('.5')).toBe('5e-1');
  });
  it('rejects non-decimals', () => {
    for (const token of ['abc', '', '.', '1.2.3', '0x10', 'inf', 'NaN', '1e'])
      expect(canonicalDecimal(token)).toBeNull();
  });
});

describe('compareOutput', () => {
  it("'exact' ignores only trailing newlines", () => {
    expect(compareOutput('3\n', '3', 'exact', tolerance)).toBe(true);
    expect(compareOutput('3 \n', '3', 'exact', tolerance)).toBe(false);
    expect(compareOutput(' 3', '3', 'exact', tolerance)).toBe(false);
  });

  it("'whitespace' follows LiveCodeBench: strip, per-line strip, equal line counts, decimal tokens", () => {
    expect(compareOutput('  1 2 \n 3\n\n', '1 2\n3', 'whitespace', tolerance)).toBe(true);
    expect(compareOutput('1\n2', '1 2', 'whitespace', tolerance)).toBe(false);
    expect(compareOutput('1.0 2', '1 2.00', 'whitespace', tolerance)).toBe(true);
    expect(compareOutput('1   2', '1 2', 'whitespace', tolerance)).toBe(true);
    // non-numeric lines must match exactly after strip, internal spacing included
    expect(compareOutput('a   b', 'a b', 'whitespace', tolerance)).toBe(false);
    // exact decimals, not float closeness (LCB's own example)
    expect(compareOutput('50000000000000000', '50000000000000001', 'whitespace', tolerance)).toBe(false);
    expect(compareOutput('0.30000000000000004', '0.3', 'whitespace', tolerance)).toBe(false);
    expect(compareOutput('YES', 'yes', 'whitespace', tolerance)).toBe(false);
  });

  it("'float' compares tokens with rel+abs tolerance", () => {
    expect(compareOutput('0.30000000000000004', '0.3', 'float', tolerance)).toBe(true);
    expect(compareOutput('3.1415929', '3.1415926', 'float', tolerance)).toBe(true);
    expect(compareOutput('3.1416', '3.1415926', 'float', tolerance)).toBe(false);
    // relative: |1000000.5 - 1000000| = 0.5 <= 1e-6 * 1000000.5 ≈ 1.0
    expect(compareOutput('1000000.5', '1000000', 'float', tolerance)).toBe(true);
    expect(compareOutput('1 2\n3', '1 2 3', 'float', tolerance)).toBe(true);
    expect(compareOutput('1 2', '1 2 3', 'float', tolerance)).toBe(false);
    expect(compareOutput('YES 1.0000001', 'YES 1', 'float', tolerance)).toBe(true);
    expect(compareOutput('NO 1', 'YES 1', 'float', tolerance)).toBe(false);
  });
});

describe('compareJson', () => {
  it('is deep equality like Python ==, tolerant only in float mode', () => {
    expect(compareJson([1, [2, 3]], [1, [2, 3]], 'whitespace', tolerance)).toBe(true);
    expect(compareJson({ a: 1, b: [true] }, { b: [true], a: 1 }, 'exact', tolerance)).toBe(true);
    expect(compareJson([1, 2], [2, 1], 'exact', tolerance)).toBe(false);
    expect(compareJson({ a: 1 }, { a: 1, b: 2 }, 'exact', tolerance)).toBe(false);
    expect(compareJson(0.1 + 0.2, 0.3, 'whitespace', tolerance)).toBe(false);
    expect(compareJson([0.1 + 0.2], [0.3], 'float', tolerance)).toBe(true);
    expect(compareJson(null, null, 'exact', tolerance)).toBe(true);
    expect(compareJson('3', 3, 'exact', tolerance)).toBe(false);
  });
});
