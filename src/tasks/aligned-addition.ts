// Addition with both operands right-aligned in a fixed-width prompt, so that every column of the worked
// solution reads the same prompt positions whatever the number of digits. This is the ladder task of
// issue 28: with the plain `addition` prompt (width = the longer operand), a model with learned absolute
// positions must learn each length's addressing separately, and each length flips from unlearned to
// learned in a few hundred steps (a cliff: one level between solved and 0). Right-aligned, column i sits at
// the same positions in every problem that has it, so the columns are shared across lengths, later
// columns are trained by fewer problems (only those at least that long), and pass rates fall level by
// level; columns beyond the longest pretraining length are never trained (pass 0).
//
// Prompt:   `.......758+.......067\n`   (each operand zero-padded to the longer one's d digits, as in
//                                          `addition`, then led by `.` up to 10 characters)
// Solution: `8+7+0=15\n5+6+1=12\n7+0+1=08\nA:825`   (the same column trace as `addition`; the next
//                                                      column is `.` in both operands where it stops)
// Difficulty d: the longer operand has exactly d digits (1..10), the other 1..d digits (uniform).
import type { Problem } from '../core/problem.ts';
import { additionTrace, canonicalOperandKey, operandGenerators } from './addition.ts';
import {
  extractAnswerLine,
  makeProblem,
  type ParsedProblem,
  sortedAlphabet,
  type Task,
  verifyExactAnswer,
} from './task.ts';

const name = 'aligned-addition';
/** Prompt width of each operand: the longest problem (10 digits) fills a 128-token context to 127. */
export const alignedWidth = 10;
const difficulty = { min: 1, max: alignedWidth, meaning: 'digits of the longer operand' };

/** An aligned-addition problem from two operands given as decimal strings of at most 10 digits. */
export function alignedAdditionProblem(left: string, right: string): Problem {
  const { columns, sum } = additionTrace(left, right);
  const width = Math.max(left.length, right.length);
  if (width > alignedWidth) throw new RangeError(`${name}: an operand has more than ${alignedWidth} digits`);
  const operand = (text: string) => text.padStart(width, '0').padStart(alignedWidth, '.');
  return makeProblem({
    task: name,
    difficulty: width,
    prompt: `${operand(left)}+${operand(right)}\n`,
    answer: sum,
    solution: `${columns.join('\n')}\nA:${sum}`,
    params: { digits: width, digitsA: left.length, digitsB: right.length },
  });
}

/** Self-play: the first line as `<digits>+<digits>`, each operand optionally led by dots, ≤ 10 digits. */
export function parseAlignedAdditionProblem(text: string): ParsedProblem {
  if (typeof text !== 'string') return { ok: false, reason: 'unparsable', detail: 'not text' };
  const match = /^\.*(\d+)\+\.*(\d+)$/.exec(text.split('\n')[0].trim());
  if (match === null) {
    return { ok: false, reason: 'unparsable', detail: 'first line is not <digits>+<digits>' };
  }
  if (Math.max(match[1].length, match[2].length) > alignedWidth) {
    return { ok: false, reason: 'out-of-grammar', detail: `an operand has more than ${alignedWidth} digits` };
  }
  return { ok: true, problem: alignedAdditionProblem(match[1], match[2]) };
}

/** Operands without padding or leading zeros, smaller first: equal for swapped twins. */
export function alignedAdditionCanonicalKey(problem: Problem): string {
  const operands = problem.prompt.trim().split('+');
  return canonicalOperandKey(
    name,
    operands.map((operand) => operand.replace(/^\.*/, '')),
  );
}

export const alignedAddition: Task = {
  name,
  description:
    'Add two integers right-aligned in a fixed-width prompt (the ladder task): the same column trace as addition.',
  difficulty,
  alphabet: sortedAlphabet('0123456789', '+=\n.', 'A:'),
  parameters: [
    { name: 'digitsA', min: 1, max: alignedWidth, integer: true },
    { name: 'digitsB', min: 1, max: alignedWidth, integer: true },
  ],
  ...operandGenerators({ name, difficulty }, alignedAdditionProblem),
  // prompt 2·10+2 = 22, solution 9d-1 (d columns and d-1 newlines) + 3 (`\nA:`) + d+1 (sum), BOS and EOS: 10d+27
  maxSequenceTokens: (level) => 10 * level + 27,
  verify: verifyExactAnswer,
  extractAnswer: extractAnswerLine,
  parseProblem: parseAlignedAdditionProblem,
  canonicalKey: alignedAdditionCanonicalKey,
};
