// The exact calculator tool (issue 30): integer expressions with + - * and parentheses, evaluated with
// BigInt, so 7-8 digit sums (Tool-Zero's setting on the ladder) and their products are exact. A
// recursive-descent parser over the expression's own characters: nothing is passed to eval, and an
// expression longer than 200 characters or nested deeper than 32 parentheses is refused before parsing.
import { z } from 'zod';
import { defineTool } from './define.ts';

const maxLength = 200;
const maxDepth = 32;

class CalculatorError extends Error {}

/** The value of `expression` (spaces allowed), as a decimal string; throws CalculatorError saying why not. */
export function evaluateInteger(expression: string): string {
  if (expression.length > maxLength) throw new CalculatorError(`longer than ${maxLength} characters`);
  const text = expression.replace(/\s+/g, '');
  if (text.length === 0) throw new CalculatorError('empty expression');
  let at = 0;
  const fail = (what: string): never => {
    throw new CalculatorError(`${what} at character ${at + 1} of '${text}'`);
  };
  const atom = (depth: number): bigint => {
    if (text[at] === '-') {
      at++;
      return -atom(depth);
    }
    if (text[at] === '(') {
      if (depth >= maxDepth) fail(`more than ${maxDepth} nested parentheses`);
      at++;
      const value = sum(depth + 1);
      if (text[at] !== ')') fail("expected ')'");
      at++;
      return value;
    }
    const start = at;
    while (at < text.length && text[at] >= '0' && text[at] <= '9') at++;
    if (at === start) fail(at < text.length ? `unexpected '${text[at]}'` : 'expected a number');
    return BigInt(text.slice(start, at));
  };
  const product = (depth: number): bigint => {
    let value = atom(depth);
    while (text[at] === '*') {
      at++;
      value *= atom(depth);
    }
    return value;
  };
  const sum = (depth: number): bigint => {
    let value = product(depth);
    while (text[at] === '+' || text[at] === '-') {
      const op = text[at++];
      const right = product(depth);
      value = op === '+' ? value + right : value - right;
    }
    return value;
  };
  const value = sum(0);
  if (at !== text.length) fail(`unexpected '${text[at]}'`);
  return value.toString();
}

/** The `calc` tool: evaluateInteger of its `expression`. */
export const calculator = defineTool({
  name: 'calc',
  description: 'Exact integer arithmetic: + - * and parentheses, e.g. 1234567+7654321.',
  input: z.object({ expression: z.string().min(1).max(maxLength) }).strict(),
  fromText: (text) => ({ expression: text }),
  run: async ({ expression }) => evaluateInteger(expression),
});
