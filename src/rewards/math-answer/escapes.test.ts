import { describe, expect, it } from 'vitest';
import { undoubleBackslashes } from './escapes.ts';
import { verifySync } from './verify.ts';

describe('doubled backslashes', () => {
  it('halves them when every command is doubled, and only then', () => {
    expect(undoubleBackslashes('\\\\frac{2}{7} + \\\\sqrt{3}')).toBe('\\frac{2}{7} + \\sqrt{3}');
    // A matrix row separator next to single-backslash commands stays.
    const matrix = '\\begin{pmatrix}\\frac{1}{2}\\\\ \\frac{1}{4}\\end{pmatrix}';
    expect(undoubleBackslashes(matrix)).toBe(matrix);
    // Mixed: one command single, one doubled — left alone.
    expect(undoubleBackslashes('3 \\\\le y \\le 8')).toBe('3 \\\\le y \\le 8');
    expect(undoubleBackslashes('no commands at all')).toBe('no commands at all');
  });

  it('lets a doubly escaped gold or completion verify as its single-escaped form', () => {
    expect(
      verifySync(
        '$\\\\left(\\\\frac{2}{7},\\\\frac{3}{8}\\\\right)$',
        'So $\\left(\\frac{2}{7}, \\frac{3}{8}\\right)$.',
      ).correct,
    ).toBe(true);
    expect(verifySync('$\\frac{2}{7}$', 'The answer is $\\\\dfrac{2}{7}$').correct).toBe(true);
    expect(verifySync('$\\frac{2}{7}$', 'The answer is $\\\\dfrac{3}{7}$').correct).toBe(false);
    const matrix = '$\\begin{pmatrix}1\\\\2\\end{pmatrix}$';
    expect(verifySync(matrix, matrix).correct).toBe(true);
  });
});

describe('doubled backslashes beside escaped newlines', () => {
  it('halves a text whose doubled commands dominate, and an extracted answer that is all doubled', () => {
    // Three doubled commands, one `\n` escape: halved.
    expect(undoubleBackslashes('\\\\frac{1}{2}\\n\\\\sqrt{2}\\\\pi')).toBe('\\frac{1}{2}\\n\\sqrt{2}\\pi');
    // Escapes outnumber the doubled commands, so the whole text stays; its boxed answer is still read.
    const completion = 'Step\\nOne\\nTwo\\nThree\\nFour: so $\\\\boxed{\\\\frac{2}{9}}$';
    expect(undoubleBackslashes(completion)).toBe(completion);
    expect(verifySync('$\\frac{2}{9}$', completion).correct).toBe(true);
    expect(verifySync('$\\frac{2}{7}$', completion).correct).toBe(false);
  });
});
