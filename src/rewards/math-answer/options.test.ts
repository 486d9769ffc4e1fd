// The options that mirror Math-Verify's (roundedDigits ~ float_rounding, setRelations ~
// allow_set_relation_comp, matchTypes ~ match_types) and the inline-math rule, each against its default.
import { describe, expect, it } from 'vitest';
import { verifySync } from './verify.ts';

const correct = (gold: string, completion: string, options: Parameters<typeof verifySync>[2] = {}) =>
  verifySync(gold, completion, options).correct;

describe('math-answer options', () => {
  it('roundedDigits: a shorter decimal counts as the exact value rounded only when allowed', () => {
    expect(correct('\\frac{2}{7}', '\\boxed{0.2857}')).toBe(false);
    expect(correct('\\frac{2}{7}', '\\boxed{0.2857}', { roundedDigits: 4 })).toBe(true);
    // still correctly rounded, not truncated: 2/7 = 0.285714… rounds to 0.2857, never 0.2858
    expect(correct('\\frac{2}{7}', '\\boxed{0.2858}', { roundedDigits: 4 })).toBe(false);
    expect(correct('\\frac{2}{7}', '\\boxed{0.286}', { roundedDigits: 4 })).toBe(false);
    expect(correct('\\frac{2}{7}', '\\boxed{0.285714}')).toBe(true);
  });

  it('setRelations: a set gold accepts a relation answer only when asked; a relation gold always accepts a set', () => {
    expect(correct('[3, 8)', '\\boxed{3 \\le y < 8}')).toBe(false);
    expect(correct('[3, 8)', '\\boxed{3 \\le y < 8}', { setRelations: true })).toBe(true);
    expect(correct('[3, 8)', '\\boxed{3 < y < 8}', { setRelations: true })).toBe(false);
    expect(
      correct('(-\\infty, 1) \\cup (4, \\infty)', '\\boxed{t < 1 \\text{ or } t > 4}', {
        setRelations: true,
      }),
    ).toBe(true);
    expect(correct('3 \\le y < 8', '\\boxed{[3, 8)}')).toBe(true);
  });

  it('matchTypes: latex alone reads no bare number, expr alone reads no box or math group', () => {
    expect(correct('14', 'so the count is 14')).toBe(true);
    expect(correct('14', 'so the count is 14', { matchTypes: ['latex'] })).toBe(false);
    expect(correct('14', 'the count is $14$', { matchTypes: ['latex'] })).toBe(true);
    expect(correct('\\frac{1}{2}', 'we get $\\frac{1}{2}$', { matchTypes: ['expr'] })).toBe(false);
    expect(correct('\\frac{1}{2}', 'we get $\\frac{1}{2}$', { matchTypes: ['latex'] })).toBe(true);
    expect(correct('\\frac{1}{2}', 'we get \\boxed{\\frac{1}{2}}', { matchTypes: ['expr'] })).toBe(false);
    expect(correct('14', 'The final answer is 14', { matchTypes: ['latex'] })).toBe(true);
  });

  it('inline math does not span lines; display math does', () => {
    expect(correct('14', 'Answer $\n14\n$', { matchTypes: ['latex'] })).toBe(false);
    expect(correct('14', 'Answer \\(\n14\n\\)', { matchTypes: ['latex'] })).toBe(false);
    expect(correct('14', 'Answer $$\n14\n$$', { matchTypes: ['latex'] })).toBe(true);
    expect(correct('14', 'Answer \\[\n14\n\\]', { matchTypes: ['latex'] })).toBe(true);
    // $a$ on one line and $b$ on the next are two groups, the last one read
    expect(correct('14', 'first $13$ then\nfinally $14$', { matchTypes: ['latex'] })).toBe(true);
  });
});
