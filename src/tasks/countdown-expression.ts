// A small, safe arithmetic-expression parser and exact rational evaluator for the countdown verifier
// (no eval). Grammar (usual precedence, left associative, no unary minus):
//   expression := term (('+' | '-') term)*
//   term       := factor (('*' | '/') factor)*
//   factor     := integer | '(' expression ')'
// Spaces are ignored. Values are exact rationals over BigInt, so 7/2*2 is exactly 7.

export type ExpressionNode =
  | { kind: 'number'; value: bigint }
  | { kind: 'binary'; operator: '+' | '-' | '*' | '/'; left: ExpressionNode; right: ExpressionNode };

/** An exact rational number: numerator / denominator, denominator > 0, in lowest terms. */
export interface Rational {
  numerator: bigint;
  denominator: bigint;
}

export class ExpressionError extends Error {
  override name = 'ExpressionError';
}

/** Longest expression the parser accepts (guards against pathological completions). */
export const maxExpressionLength = 200;

export function parseExpression(text: string): ExpressionNode {
  if (text.length > maxExpressionLength) {
    throw new ExpressionError(`expression longer than ${maxExpressionLength} characters`);
  }
  const source = text.replace(/ /g, '');
  let position = 0;

  const fail = (what: string): never => {
    const found = position < source.length ? `'${source[position]}'` : 'end of expression';
    throw new ExpressionError(`expected ${what} at position ${position}, found ${found}`);
  };

  const parseFactor = (): ExpressionNode => {
    if (source[position] === '(') {
      position++;
      const inner = parseSum();
      if (source[position] !== ')') fail("')'");
      position++;
      return inner;
    }
    const start = position;
    while (position < source.length && source[position] >= '0' && source[position] <= '9') position++;
    if (position === start) fail('a number or (');
    return { kind: 'number', value: BigInt(source.slice(start, position)) };
  };

  const parseProduct = (): ExpressionNode => {
    let node = parseFactor();
    while (source[position] === '*' || source[position] === '/') {
      const operator = source[position] as '*' | '/';
      position++;
      node = { kind: 'binary', operator, left: node, right: parseFactor() };
    }
    return node;
  };

  function parseSum(): ExpressionNode {
    let node = parseProduct();
    while (source[position] === '+' || source[position] === '-') {
      const operator = source[position] as '+' | '-';
      position++;
      node = { kind: 'binary', operator, left: node, right: parseProduct() };
    }
    return node;
  }

  const tree = parseSum();
  if (position !== source.length) fail('an operator');
  return tree;
}

/** The integer literals of an expression, left to right. */
export function expressionNumbers(node: ExpressionNode): bigint[] {
  return node.kind === 'number'
    ? [node.value]
    : [...expressionNumbers(node.left), ...expressionNumbers(node.right)];
}

function gcd(a: bigint, b: bigint): bigint {
  a = a < 0n ? -a : a;
  b = b < 0n ? -b : b;
  while (b !== 0n) [a, b] = [b, a % b];
  return a;
}

function rational(numerator: bigint, denominator: bigint): Rational {
  if (denominator === 0n) throw new ExpressionError('division by zero');
  if (denominator < 0n) [numerator, denominator] = [-numerator, -denominator];
  const divisor = gcd(numerator, denominator) || 1n;
  return { numerator: numerator / divisor, denominator: denominator / divisor };
}

/** Exact value of an expression; throws ExpressionError on division by zero. */
export function evaluateExpression(node: ExpressionNode): Rational {
  if (node.kind === 'number') return { numerator: node.value, denominator: 1n };
  const a = evaluateExpression(node.left);
  const b = evaluateExpression(node.right);
  switch (node.operator) {
    case '+':
      return rational(
        a.numerator * b.denominator + b.numerator * a.denominator,
        a.denominator * b.denominator,
      );
    case '-':
      return rational(
        a.numerator * b.denominator - b.numerator * a.denominator,
        a.denominator * b.denominator,
      );
    case '*':
      return rational(a.numerator * b.numerator, a.denominator * b.denominator);
    case '/':
      return rational(a.numerator * b.denominator, a.denominator * b.numerator);
  }
}

export function formatRational(value: Rational): string {
  return value.denominator === 1n ? String(value.numerator) : `${value.numerator}/${value.denominator}`;
}
