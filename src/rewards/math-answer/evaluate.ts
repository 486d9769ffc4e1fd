// Evaluators over compute-engine's non-canonical MathJSON: the exact rational one (BigInt) here, the complex
// floating-point one in numeric-value.ts. We evaluate ourselves instead of calling compute-engine's `N()`/`isEqual` because
// (1) canonicalising costs ~2 ms per expression against ~0.2 ms for a raw parse, and (2) `isEqual` uses an
// absolute tolerance (1e-10), which declares 1/2004! = 1/2006! and 1/2^99 = 1/2^98. Exact values are
// compared exactly here; see compare.ts for the tolerance rules.
// Follows the spirit of Math-Verify v0.8.0 (exact numbers must be exactly equal after evaluation) and
// Qwen's math_equal (numeric evaluation as a fallback); both use SymPy, this uses its own small evaluator.

/** MathJSON as compute-engine prints it: numbers, {num} big numbers, symbols, 'strings', [head, ...args]. */
export type Json = number | string | { num: string } | Json[];

/** A value too large to evaluate exactly (e.g. 10^{10^{10}}); the caller falls back or reports an error. */
export class TooLargeError extends Error {
  override name = 'TooLargeError';
}

/** An operator this evaluator does not know. */
export class UnsupportedError extends Error {
  override name = 'UnsupportedError';
}

// ---------- exact rationals ----------

export interface Rational {
  n: bigint;
  d: bigint; // > 0, gcd(n, d) = 1
}

const MAX_BITS = 100_000; // ~30,000 decimal digits: 2006! has ~5,700 (~19,000 bits)

function gcd(a: bigint, b: bigint): bigint {
  if (a < 0n) a = -a;
  if (b < 0n) b = -b;
  while (b !== 0n) [a, b] = [b, a % b];
  return a;
}

function bits(x: bigint): number {
  return (x < 0n ? -x : x).toString(16).length * 4;
}

export function rational(n: bigint, d = 1n): Rational {
  if (d === 0n) throw new RangeError('division by zero');
  if (d < 0n) {
    n = -n;
    d = -d;
  }
  const g = gcd(n, d);
  const result = g > 1n ? { n: n / g, d: d / g } : { n, d };
  if (bits(result.n) + bits(result.d) > MAX_BITS) throw new TooLargeError('number too large');
  return result;
}

const add = (a: Rational, b: Rational) => rational(a.n * b.d + b.n * a.d, a.d * b.d);
const mul = (a: Rational, b: Rational) => rational(a.n * b.n, a.d * b.d);
const div = (a: Rational, b: Rational) => rational(a.n * b.d, a.d * b.n);
export const ratEqual = (a: Rational, b: Rational) => a.n === b.n && a.d === b.d;

function ratPow(base: Rational, exponent: bigint): Rational {
  if (exponent < 0n) {
    if (base.n === 0n) throw new RangeError('division by zero');
    return ratPow(rational(base.d, base.n), -exponent);
  }
  if (base.n === 0n || base.n === 1n || base.n === -1n) {
    if (base.d === 1n) return rational(exponent % 2n === 0n && base.n !== 0n ? 1n : base.n);
  }
  if (Number(exponent) * (bits(base.n) + bits(base.d)) > MAX_BITS) throw new TooLargeError('power too large');
  return rational(base.n ** exponent, base.d ** exponent);
}

function isqrt(x: bigint): bigint {
  if (x < 2n) return x;
  let r = BigInt(Math.floor(Math.sqrt(Number(x))));
  while (r * r > x) r--;
  while ((r + 1n) * (r + 1n) <= x) r++;
  return r;
}

function iroot(x: bigint, k: bigint): bigint | null {
  // exact integer k-th root of x >= 0, or null
  if (x < 2n) return x;
  let r = BigInt(Math.round(Number(x) ** (1 / Number(k))));
  for (const candidate of [r - 1n, r, r + 1n]) if (candidate >= 0n && candidate ** k === x) return candidate;
  if (k === 2n) {
    r = isqrt(x);
    return r * r === x ? r : null;
  }
  return null;
}

function factorial(n: bigint): Rational {
  if (n < 0n) throw new RangeError('factorial of a negative number');
  if (n > 5_000n) throw new TooLargeError('factorial too large'); // 5000! has ~54,000 bits
  let result = 1n;
  for (let i = 2n; i <= n; i++) result *= i;
  return rational(result);
}

/** Parses a decimal literal ('-1.25e-3') into an exact rational. */
export function decimalToRational(text: string): Rational {
  const match = /^([+-]?)(\d*)(?:\.(\d*))?(?:e([+-]?\d+))?$/i.exec(text.trim());
  if (!match) throw new UnsupportedError(`not a decimal: ${text}`);
  const [, sign, whole, fraction = '', exponentText] = match;
  const exponent = Number(exponentText ?? 0) - fraction.length;
  if (Math.abs(exponent) > 10_000) throw new TooLargeError('exponent too large');
  let n = BigInt((whole || '0') + fraction);
  if (sign === '-') n = -n;
  return exponent >= 0 ? rational(n * 10n ** BigInt(exponent)) : rational(n, 10n ** BigInt(-exponent));
}

function numberToRational(x: number): Rational {
  if (!Number.isFinite(x)) throw new UnsupportedError('infinite');
  if (Number.isInteger(x) && Math.abs(x) <= Number.MAX_SAFE_INTEGER) return rational(BigInt(x));
  // Shortest round-trip decimal, which is what the author typed for literals of up to ~15 digits.
  return decimalToRational(String(x));
}

const asInteger = (r: Rational | null): bigint | null => (r && r.d === 1n ? r.n : null);

/**
 * Exact value of a constant expression, or null when it is not rational (π, √2, free variables, unknown
 * operators). Throws TooLargeError for values beyond ~100,000 bits and RangeError on division by zero.
 */
export function exactValue(json: Json): Rational | null {
  if (typeof json === 'number') return numberToRational(json);
  if (typeof json === 'string') return null;
  if (!Array.isArray(json)) return decimalToRational(json.num);
  const [head, ...args] = json;
  const rule = typeof head === 'string' ? EXACT_RULES.get(head) : undefined;
  return rule === undefined ? null : rule(args, json);
}

/** The exact value of one operator given its arguments (and the whole expression); null when not rational. */
type ExactRule = (args: Json[], json: Json[]) => Rational | null;

const values = (args: Json[]): (Rational | null)[] => args.map(exactValue);

function exactSum(args: Json[]): Rational | null {
  let total = rational(0n);
  for (const value of values(args)) {
    if (!value) return null;
    total = add(total, value);
  }
  return total;
}

function exactDifference(args: Json[]): Rational | null {
  const [a, b] = values(args);
  if (!a || !b || args.length !== 2) return null;
  return add(a, mul(b, rational(-1n)));
}

function exactNegation(args: Json[]): Rational | null {
  const [a] = values(args);
  return a ? mul(a, rational(-1n)) : null;
}

function exactProduct(args: Json[]): Rational | null {
  let product = rational(1n);
  for (const value of values(args)) {
    if (!value) return null;
    product = mul(product, value);
  }
  return product;
}

/** Juxtaposition: a mixed number `7\frac34` (the fraction takes the whole part's sign), else a product. */
function exactJuxtaposition(args: Json[], json: Json[]): Rational | null {
  if (!isMixedNumber(json)) return exactProduct(args);
  const [whole, fraction] = values(args);
  return whole && fraction ? add(whole, whole.n < 0n ? mul(fraction, rational(-1n)) : fraction) : null;
}

function exactQuotient(args: Json[]): Rational | null {
  const [a, b] = values(args);
  if (!a || !b || args.length !== 2) return null;
  return div(a, b);
}

/** A rational power; a fractional exponent (denominator ≤ 16, base ≥ 0) only when the root is exact. */
function exactPower(args: Json[]): Rational | null {
  const [base, exponent] = values(args);
  if (!base || !exponent) return null;
  if (exponent.d === 1n) return ratPow(base, exponent.n);
  if (exponent.d > 16n || base.n < 0n) return null;
  return exactRoot(ratPow(base, exponent.n), exponent.d);
}

function exactSquare(args: Json[]): Rational | null {
  const [a] = values(args);
  return a ? mul(a, a) : null;
}

function exactSquareRoot(args: Json[]): Rational | null {
  const [a] = values(args);
  return a && a.n >= 0n ? exactRoot(a, 2n) : null;
}

/** The k-th root (1 ≤ k ≤ 64) when exact; an odd root of a negative number is negative. */
function exactKthRoot(args: Json[]): Rational | null {
  const [a, k] = values(args);
  const degree = asInteger(k);
  if (!a || degree === null || degree < 1n || degree > 64n) return null;
  if (a.n < 0n) {
    if (degree % 2n === 0n) return null;
    const root = exactRoot(rational(-a.n, a.d), degree);
    return root ? rational(-root.n, root.d) : null;
  }
  return exactRoot(a, degree);
}

function exactFactorial(args: Json[]): Rational | null {
  const n = asInteger(values(args)[0]);
  return n === null ? null : factorial(n);
}

function exactBinomial(args: Json[]): Rational | null {
  const [n, k] = values(args).map(asInteger);
  if (n === null || k === null || n < 0n || k < 0n || k > n) return null;
  if (n > 20_000n) throw new TooLargeError('binomial too large');
  let result = 1n;
  // biome-ignore lint/complexity/useMathMinMax: bigint operands (Math.min does not take bigints)
  const kk = k < n - k ? k : n - k;
  for (let i = 1n; i <= kk; i++) result = (result * (n - kk + i)) / i;
  return rational(result);
}

function exactAbsolute(args: Json[]): Rational | null {
  const [a] = values(args);
  return a ? rational(a.n < 0n ? -a.n : a.n, a.d) : null;
}

/** Parentheses around one expression. */
function exactDelimited(args: Json[]): Rational | null {
  return args.length === 1 ? exactValue(args[0]) : null;
}

/** The operators exactValue knows, by MathJSON head; any other head is not rational (null). */
const EXACT_RULES = new Map<string, ExactRule>([
  ['Add', exactSum],
  ['Subtract', exactDifference],
  ['Negate', exactNegation],
  ['Multiply', exactProduct],
  ['InvisibleOperator', exactJuxtaposition],
  ['Divide', exactQuotient],
  ['Rational', exactQuotient],
  ['Power', exactPower],
  ['Square', exactSquare],
  ['Sqrt', exactSquareRoot],
  ['Root', exactKthRoot],
  ['Factorial', exactFactorial],
  ['Binomial', exactBinomial],
  ['Abs', exactAbsolute],
  ['Delimiter', exactDelimited],
]);

function exactRoot(a: Rational, k: bigint): Rational | null {
  const n = iroot(a.n, k);
  const d = iroot(a.d, k);
  return n === null || d === null ? null : rational(n, d);
}

/** `7\frac34` (an integer literal followed by a numeric fraction) reads as the mixed number 7¾. */
export function isMixedNumber(json: Json): boolean {
  if (!Array.isArray(json) || json[0] !== 'InvisibleOperator' || json.length !== 3) return false;
  const [, whole, fraction] = json;
  return (
    typeof whole === 'number' &&
    Number.isInteger(whole) &&
    Array.isArray(fraction) &&
    fraction[0] === 'Divide' &&
    typeof fraction[1] === 'number' &&
    typeof fraction[2] === 'number'
  );
}
