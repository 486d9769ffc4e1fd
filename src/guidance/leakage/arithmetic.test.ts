// The leakage guard's exact arithmetic, by hand, and against the math verifier on the forms it reads.
import { describe, expect, it } from 'vitest';
import { verifySync } from '../../rewards/math-answer/verify.ts';
import { arithmeticValue, sameValue } from './arithmetic.ts';

describe('arithmeticValue', () => {
  it('reads integers, decimals, exponents, operators, parentheses and \\frac exactly', () => {
    expect(arithmeticValue('258/2')).toEqual({ n: 129n, d: 1n });
    expect(arithmeticValue('1.29e2')).toEqual({ n: 129n, d: 1n });
    expect(arithmeticValue('1.29 * 10^2')).toEqual({ n: 129n, d: 1n });
    expect(arithmeticValue('\\frac{258}{2}')).toEqual({ n: 129n, d: 1n });
    expect(arithmeticValue('(25+3)*4')).toEqual({ n: 112n, d: 1n });
    expect(arithmeticValue('2^-2')).toEqual({ n: 1n, d: 4n });
    expect(arithmeticValue('-3+1/3')).toEqual({ n: -8n, d: 3n });
    expect(arithmeticValue('2^3^2')).toEqual({ n: 512n, d: 1n }); // right-associative
    for (const bad of ['', '1/0', '2^x', '(1+2', '1+', '2^100', 'e5'])
      expect(arithmeticValue(bad), bad).toBeNull();
  });

  it('agrees with the math verifier on equal values and on unequal ones', () => {
    const spans = [
      '100+29',
      '258/2',
      '1.29e2',
      '129.0',
      '130-1',
      '43*3',
      '1.29*10^2',
      '128',
      '6+6+0',
      '2^7+1',
      '2^7',
    ];
    for (const span of spans) {
      expect(sameValue('129', span), span).toBe(verifySync('129', `\\boxed{${span}}`).correct);
    }
    expect(sameValue('32+40+24+43', '72+67')).toBe(true);
    expect(sameValue('32+40+24+43', '72+66')).toBe(false);
  });
});
