// Cases for the echo rule (echo.ts): an answer restating an expression of the problem with an operation still
// to evaluate scores 0 with reason 'echo'; final forms, evaluated answers, answers the problem does not
// contain, and golds that are themselves in the echoed form keep scoring. Each row: gold, completion,
// question, expected.
import type { MathCase } from './cases.ts';

const e = (rows: [string, string, string, 0 | 1][]): MathCase[] =>
  rows.map(([gold, completion, question, expected]) => ({
    category: 'echo',
    gold,
    completion,
    question,
    expected,
    reason: expected === 0 ? 'echo' : undefined,
  }));

export const echoCases: MathCase[] = [
  // copies of the problem's expression, in any notation
  ...e([
    ['120', '\\boxed{\\binom{10}{3}}', 'Compute C(10,3).', 0],
    ['120', '\\boxed{\\binom{10}{3}}', 'Compute $\\binom{10}{3}$.', 0],
    ['120', '\\boxed{{10 \\choose 3}}', 'How many ways are there to pick 10 choose 3 committees?', 0],
    ['120', 'The answer is $\\dbinom{10}{3}$', 'In how many ways can 3 of 10 people be chosen?', 1],
    ['391', '\\boxed{17\\times23}', 'What is $17 \\cdot 23$?', 0],
    ['391', '\\boxed{23 \\times 17}', 'What is 17 * 23?', 0],
    ['391', '\\boxed{(17)(23)}', 'Compute 17 × 23.', 0],
    ['391', '\\boxed{17\\times23\\times 1}', 'Compute $17\\times 23$.', 0],
    ['391', '\\boxed{x = 17\\times 23}', 'Find $x$ if $x = 17\\times 23$.', 0],
    ['60', '\\boxed{AB = 5 \\cdot 12}', 'Find $AB$ if $AB = 5 \\cdot 12$.', 0],
    ['\\frac{1}{3}', '\\boxed{\\int_0^1 x^2\\,dx}', 'Evaluate $\\int_{0}^{1} x^{2}\\, dx$.', 0],
    ['5', '\\boxed{2+3}', 'What is 2+3?', 0],
    ['5', '\\boxed{3 + 2}', 'What is $2+3$?', 0],
    ['55', '\\boxed{\\sum_{k=1}^{10} k}', 'Find $\\sum_{k=1}^{10} k$.', 0],
    ['120', '\\boxed{5!}', 'Compute 5!', 0],
    ['1024', '\\boxed{2^{10}}', 'Compute $2^{10}$.', 0],
    ['\\frac{3}{4}', '\\boxed{\\frac{6}{8}}', 'Simplify $\\frac{6}{8}$.', 0],
    ['2\\sqrt{2}', '\\boxed{\\sqrt{8}}', 'Simplify $\\sqrt{8}$.', 0],
    ['\\frac{1}{2}', '\\boxed{\\sin\\frac{\\pi}{6}}', 'Compute $\\sin\\frac{\\pi}{6}$.', 0],
    ['3', '\\boxed{\\log_2 8}', 'Compute $\\log_2 8$.', 0],
    ['x^2+2x+1', '\\boxed{(x+1)^2}', 'Expand $(x+1)^2$.', 0],
    ['x+1', '\\boxed{\\frac{x^2-1}{x-1}}', 'Simplify $\\frac{x^2-1}{x-1}$ for $x \\ne 1$.', 0],
    ['16', '\\boxed{4 \\cdot 4}', 'A square has side 4. Its area is $4 \\cdot 4$. What is the area?', 0],
    [
      '\\begin{pmatrix}3 & 5 \\\\ 7 & 9\\end{pmatrix}',
      '\\boxed{\\begin{pmatrix}1 & 2 \\\\ 3 & 4\\end{pmatrix} + \\begin{pmatrix}2 & 3 \\\\ 4 & 5\\end{pmatrix}}',
      'Compute $\\begin{pmatrix}1 & 2 \\\\ 3 & 4\\end{pmatrix} + \\begin{pmatrix}2 & 3 \\\\ 4 & 5\\end{pmatrix}$.',
      0,
    ],
  ]),
  // relations copied verbatim (gold not a relation)
  ...e([
    ['[-3, 7]', 'So the answer is \\boxed{-2 \\le x+1 \\le 8}', 'Solve $-2 \\le x+1 \\le 8$.', 0],
    ['4', '\\boxed{x^2 = 16}', 'Find the positive x with $x^2 = 16$.', 0],
  ]),
  // final forms, evaluated answers and honest work keep scoring
  ...e([
    ['5', '\\boxed{5}', 'What is 2+3?', 1],
    ['120', '\\boxed{120}', 'Compute C(10,3).', 1],
    ['391', 'So $17\\times 23 = 391$, and the answer is \\boxed{391}', 'What is $17 \\times 23$?', 1],
    ['5', '\\boxed{2+3=5}', 'What is 2+3?', 1],
    [
      '\\frac{1}{3}',
      '\\boxed{\\frac{1}{3}}',
      'Evaluate $\\int_0^1 x^2\\,dx$; compare with $\\frac{1}{3}$.',
      1,
    ],
    ['2\\sqrt{2}', '\\boxed{2\\sqrt{2}}', 'Is $2\\sqrt{2}$ the diagonal of a square of side 2?', 1],
    ['\\frac{\\pi}{4}', '\\boxed{\\pi/4}', 'The angle is $\\pi/4$ plus a full turn, reduced. What is it?', 1],
    [
      '\\frac{\\sqrt{3}}{2}',
      '\\boxed{\\frac{\\sqrt{3}}{2}}',
      'Given $\\frac{\\sqrt{3}}{2}$, name its angle.',
      1,
    ],
    ['0.5', '\\boxed{\\frac12}', 'A coin shows heads with probability $\\frac{1}{2}$. Tails?', 1],
    // final forms that occur in the problem, against a gold written otherwise
    [
      '0.25',
      '\\boxed{\\frac{1}{4}}',
      'Ann ate $\\frac{1}{4}$ of a pie and Bob ate half. How much did Ann eat?',
      1,
    ],
    [
      '2.8284271247',
      '\\boxed{2\\sqrt{2}}',
      'A square has side 2 and diagonal $2\\sqrt{2}$. How long is the diagonal?',
      1,
    ],
    ['0.785398163', '\\boxed{\\pi/4}', 'The angle is $\\pi/4$ radians. What is it in radians?', 1],
    ['-0.6', '\\boxed{-\\frac{3}{5}}', 'The slope is $-\\frac{3}{5}$. What is the slope?', 1],
    ['7\\frac{3}{4}', '\\boxed{7\\frac{3}{4}}', 'Write $7\\frac{3}{4}$ as a mixed number.', 1],
    ['\\ln 2', '\\boxed{\\ln 2}', 'Solve $e^x = 2$; note $\\ln 2$ is positive.', 1],
    ['7', '\\boxed{3+4}', 'Alice has 3 apples and buys 4 more. How many?', 1],
    ['120', '\\boxed{5!}', 'In how many orders can 5 people stand?', 1],
    ['1024', '\\boxed{2^{10}}', 'How many subsets does a 10-element set have?', 1],
    ['2^{10}', '\\boxed{2^{10}}', 'Which power of two is $2^{10}$?', 1],
    ['\\binom{10}{3}', '\\boxed{\\binom{10}{3}}', 'Write C(10,3) as a binomial coefficient.', 1],
    ['x^2+2x+1', '\\boxed{x^2+2x+1}', 'Expand $(x+1)^2$.', 1],
    ['x^2+2x+1', '\\boxed{1 + 2x + x^2}', 'Expand $(x+1)^2$.', 1],
    ['(x+1)^2', '\\boxed{(x+1)^2}', 'Factor $x^2+2x+1$.', 1],
    ['x^2+2x+1', '\\boxed{x^2 + 2x + 1}', 'Let $p(x) = x^2 + 2x + 1$. Write $p(x)$ in expanded form.', 1],
    ['x^2+2x+1', '\\boxed{x^2+2x+1}', 'Factor $x^2+2x+1$; write the answer unfactored.', 1],
    ['4', '\\boxed{x = 4}', 'Find the positive x with $x^2 = 16$.', 1],
    ['4', 'Evaluating, \\boxed{x = 4}', 'What is $x$ if $2x = 8$? Check by substituting x = 4.', 1],
    ['5', '\\boxed{5}', 'Which is larger, 5 or 3?', 1],
    ['13', '\\boxed{AC = 13}', 'Given $AB = 5$ and $BC = 12$, find $AC$.', 1],
    ['5', '\\boxed{AB = 5}', 'Given $AB = 5$ and $BC = 12$, find $AB$.', 1],
    ['x', '\\boxed{x}', 'Simplify $x + x - x$.', 1],
  ]),
];
