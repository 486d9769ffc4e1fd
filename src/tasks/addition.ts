// Addition of two non-negative integers with a column-wise worked solution (least-significant column
// first, explicit carries), designed to be easy for a tiny char-level transformer to imitate.
//
// Prompt:   `758+067\n`   (the shorter operand is zero-padded to the longer one's width, so column i of the
//                          trace reads the same character offset in both operands)
// Solution: `8+7+0=15\n5+6+1=12\n7+0+1=08\nA:825`   (one column per line, like every task's steps)
// Each column i (from the right) is `a+b+c=tu`: a and b are the operands' i-th digits (0 when an operand
// is shorter), c the carry into the column, and `tu` the column sum as two digits (t = carry out,
// u = the answer digit). The answer line reads the u digits right to left, led by the last carry if 1.
// Difficulty d: the longer operand has exactly d digits, the other 1..d digits (uniform), order random.
import type { Problem } from '../core/problem.ts';
import type { Rng } from '../core/rng.ts';
import {
  checkDifficulty,
  extractAnswerLine,
  knob,
  makeProblem,
  type ParsedProblem,
  sortedAlphabet,
  type Task,
  verifyExactAnswer,
} from './task.ts';

const name = 'addition';
const maxDigits = 12;
const difficulty = { min: 1, max: maxDigits, meaning: 'digits of the longer operand' };

/** A uniformly random number with exactly `digits` digits (1 digit: 0..9), as a decimal string. */
export function randomDigits(rng: Rng, digits: number): string {
  if (digits === 1) return String(rng.int(0, 9));
  let text = String(rng.int(1, 9));
  for (let i = 1; i < digits; i++) text += String(rng.int(0, 9));
  return text;
}

/** Sum of two decimal strings and the column trace of the worked solution. */
export function additionTrace(left: string, right: string): { columns: string[]; sum: string } {
  const columns: string[] = [];
  const sumDigits: string[] = [];
  let carry = 0;
  const width = Math.max(left.length, right.length);
  for (let i = 0; i < width; i++) {
    const a = digitFromRight(left, i);
    const b = digitFromRight(right, i);
    const total = a + b + carry;
    columns.push(`${a}+${b}+${carry}=${Math.floor(total / 10)}${total % 10}`);
    sumDigits.push(String(total % 10));
    carry = Math.floor(total / 10);
  }
  if (carry > 0) sumDigits.push(String(carry));
  const sum = sumDigits
    .reverse()
    .join('')
    .replace(/^0+(?=\d)/, '');
  return { columns, sum };
}

function digitFromRight(number: string, index: number): number {
  return index < number.length ? number.charCodeAt(number.length - 1 - index) - 48 : 0;
}

/** An addition problem from two operands given as decimal strings. */
export function additionProblem(left: string, right: string): Problem {
  const { columns, sum } = additionTrace(left, right);
  const width = Math.max(left.length, right.length);
  return makeProblem({
    task: name,
    difficulty: width,
    prompt: `${left.padStart(width, '0')}+${right.padStart(width, '0')}\n`,
    answer: sum,
    solution: `${columns.join('\n')}\nA:${sum}`,
    params: { digits: Math.max(left.length, right.length), digitsA: left.length, digitsB: right.length },
  });
}

/**
 * generate and generateFromParams of an addition-shaped task: `build(left, right)` makes its problem from
 * two random operands; at level d the longer has d digits, the other 1..d (uniform), order random.
 */
export function operandGenerators(
  task: { name: string; difficulty: { min: number; max: number; meaning: string } },
  build: (left: string, right: string) => Problem,
): Pick<Task, 'generate' | 'generateFromParams'> {
  const fromDigits = (rng: Rng, digitsA: number, digitsB: number) =>
    build(randomDigits(rng, digitsA), randomDigits(rng, digitsB));
  const max = task.difficulty.max;
  return {
    generate(rng, level) {
      checkDifficulty(task.name, task.difficulty, level);
      const shorter = rng.int(1, level);
      return rng.next() < 0.5 ? fromDigits(rng, level, shorter) : fromDigits(rng, shorter, level);
    },
    generateFromParams(rng, params) {
      return fromDigits(rng, knob(params.digitsA, 1, max, 1), knob(params.digitsB, 1, max, 1));
    },
  };
}

/** Self-play: the first line of a generated statement as `<digits>+<digits>` (each ≤ 12 digits). */
export function parseAdditionProblem(text: string): ParsedProblem {
  if (typeof text !== 'string') return { ok: false, reason: 'unparsable', detail: 'not text' };
  const line = text.split('\n')[0].trim();
  const match = /^(\d+)\+(\d+)$/.exec(line);
  if (match === null)
    return { ok: false, reason: 'unparsable', detail: 'first line is not <digits>+<digits>' };
  const [left, right] = [match[1], match[2]];
  if (Math.max(left.length, right.length) > maxDigits) {
    return { ok: false, reason: 'out-of-grammar', detail: `an operand has more than ${maxDigits} digits` };
  }
  return { ok: true, problem: additionProblem(left, right) };
}

/** Operands without leading zeros, smaller first: equal for swapped and zero-padded variants. */
export function additionCanonicalKey(problem: Problem): string {
  return canonicalOperandKey(name, problem.prompt.trim().split('+'));
}

/** `<task>:<smaller>+<larger>` of two operands, leading zeros dropped (the addition tasks' canonical key). */
export function canonicalOperandKey(task: string, operands: string[]): string {
  const numbers = operands.map((operand) => operand.replace(/^0+(?=\d)/, ''));
  numbers.sort((a, b) => a.length - b.length || (a < b ? -1 : a > b ? 1 : 0));
  return `${task}:${numbers.join('+')}`;
}

export const addition: Task = {
  name,
  description: 'Add two integers; the worked solution adds column by column from the right with carries.',
  difficulty,
  alphabet: sortedAlphabet('0123456789', '+=\n', 'A:'),
  parameters: [
    { name: 'digitsA', min: 1, max: maxDigits, integer: true },
    { name: 'digitsB', min: 1, max: maxDigits, integer: true },
  ],
  ...operandGenerators({ name, difficulty }, additionProblem),
  // prompt 2d+2 (`a+b\n`, both padded to d digits), solution 9d-1 (d columns of 8 and d-1 newlines) + 3 (`\nA:`) + d+1 (sum), BOS and EOS: 12d+7
  maxSequenceTokens: (level) => 12 * level + 7,
  verify: verifyExactAnswer,
  extractAnswer: extractAnswerLine,
  parseProblem: parseAdditionProblem,
  canonicalKey: additionCanonicalKey,
};
