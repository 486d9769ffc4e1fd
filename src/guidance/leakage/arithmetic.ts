// Exact values of the arithmetic the leakage guard finds in a hint (leak-forms.ts `value`): integers and
// decimals, scientific notation ("1.29e2"), + − * / ^ (integer exponents, |e| ≤ 64), parentheses and
// \frac{a}{b}, in BigInt rationals, so "258/2", "1.29 * 10^2" and "\frac{258}{2}" equal 129 exactly.
// Ours, instead of the math verifier (src/rewards/math-answer): that one parses with compute-engine,
// which the trainer keeps off its main thread (it runs in the reward's worker threads), and these spans
// are plain arithmetic. null = not arithmetic this reads (a symbol, a division by zero, a huge power).

interface Rational {
  n: bigint;
  d: bigint;
}

const gcd = (a: bigint, b: bigint): bigint => (b === 0n ? (a < 0n ? -a : a) : gcd(b, a % b));
function make(n: bigint, d: bigint): Rational | null {
  if (d === 0n) return null;
  const sign = d < 0n ? -1n : 1n;
  const g = gcd(n, d) || 1n;
  return { n: (sign * n) / g, d: (sign * d) / g };
}

/** `text`'s exact value, or null. */
export function arithmeticValue(text: string): Rational | null {
  const source = text.replace(/\\frac\{([^{}]*)\}\{([^{}]*)\}/g, '(($1)/($2))').replace(/\s+/g, '');
  let at = 0;
  const peek = () => source[at];
  const fail = (): null => null;
  function number(): Rational | null {
    const match = /^(\d+)(?:\.(\d+))?(?:e([-+]?\d+))?/.exec(source.slice(at));
    if (!match) return fail();
    at += match[0].length;
    const fraction = match[2] ?? '';
    let n = BigInt(match[1] + fraction);
    let d = 10n ** BigInt(fraction.length);
    const exponent = Number(match[3] ?? 0);
    if (Math.abs(exponent) > 64) return fail();
    if (exponent >= 0) n *= 10n ** BigInt(exponent);
    else d *= 10n ** BigInt(-exponent);
    return make(n, d);
  }
  function atom(): Rational | null {
    if (peek() === '(') {
      at++;
      const inner = sum();
      if (inner === null || peek() !== ')') return fail();
      at++;
      return inner;
    }
    if (peek() === '-' || peek() === '+') {
      const negative = source[at++] === '-';
      const value = power();
      return value && (negative ? { n: -value.n, d: value.d } : value);
    }
    return number();
  }
  function power(): Rational | null {
    const base = atom();
    if (base === null || peek() !== '^') return base;
    at++;
    const exponent = power();
    if (exponent === null || exponent.d !== 1n || exponent.n > 64n || exponent.n < -64n) return fail();
    const k = Number(exponent.n);
    const raised = make(base.n ** BigInt(Math.abs(k)), base.d ** BigInt(Math.abs(k)));
    return raised && (k >= 0 ? raised : make(raised.d, raised.n));
  }
  function product(): Rational | null {
    let value = power();
    while (value !== null && (peek() === '*' || peek() === '/')) {
      const operator = source[at++];
      const right = power();
      if (right === null) return fail();
      value =
        operator === '*'
          ? make(value.n * right.n, value.d * right.d)
          : make(value.n * right.d, value.d * right.n);
    }
    return value;
  }
  function sum(): Rational | null {
    let value = product();
    while (value !== null && (peek() === '+' || peek() === '-')) {
      const operator = source[at++];
      const right = product();
      if (right === null) return fail();
      value = make(value.n * right.d + (operator === '+' ? 1n : -1n) * right.n * value.d, value.d * right.d);
    }
    return value;
  }
  if (source === '') return null;
  const value = sum();
  return value !== null && at === source.length ? value : null;
}

/** True when both read and their values are equal. */
export function sameValue(a: string, b: string): boolean {
  const x = arithmeticValue(a);
  const y = arithmeticValue(b);
  return x !== null && y !== null && x.n === y.n && x.d === y.d;
}
