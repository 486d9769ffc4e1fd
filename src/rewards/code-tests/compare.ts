// Output comparison for stdin/stdout tests and JSON results of function-call tests.
//
// Modes:
// - 'exact': equal after removing trailing newlines (SandboxFusion's `rstrip('\n')`).
// - 'whitespace' (default): LiveCodeBench `compare_strings_stdio` — strip the whole output, split into
//   lines, strip each line; line counts must match; each line must be equal, or else every whitespace token
//   of both lines must parse as a decimal and the token lists be numerically equal (exact decimal equality,
//   as LCB's `Decimal`, not float closeness: 50000000000000000 != 50000000000000001).
// - 'float': token-wise over the whole output (line breaks are whitespace): same token count, numeric tokens
//   equal within |a-b| <= max(absTol, relTol*max(|a|,|b|)) (Python's math.isclose), others exactly equal.
//   This is the Codeforces-checker style; APPS/TACO use np.allclose over all-float outputs instead.
// JSON results (function-call tests): deep equality like Python's `==` after JSON (tuples become lists),
// numbers compared with the tolerance in 'float' mode and exactly otherwise.
import { isSpace } from './extract.ts';

export type CompareMode = 'exact' | 'whitespace' | 'float';

export interface Tolerance {
  relTol: number;
  absTol: number;
}

export function compareOutput(
  actual: string,
  expected: string,
  mode: CompareMode,
  tolerance: Tolerance,
): boolean {
  if (mode === 'exact') return trimNewlines(actual) === trimNewlines(expected);
  if (mode === 'whitespace') return compareLines(actual, expected);
  return compareTokens(actual, expected, tolerance);
}

// Every function here runs on the host over a program's output (up to the output cap, 1 MiB by default) and
// must take time linear in it: no regular expression that can backtrack (`/\n+$/` and `/0+$/` were
// quadratic on long runs of newlines or zeros that do not end the text). Tested in linear-time.test.ts, and
// against the old comparators in scanner-equivalence.test.ts.

/** `text` without its trailing newlines (`text.replace(/\n+$/, '')`, in linear time). */
function trimNewlines(text: string): string {
  let end = text.length;
  while (end > 0 && text.charCodeAt(end - 1) === 10) end--;
  return end === text.length ? text : text.slice(0, end);
}

function compareLines(actual: string, expected: string): boolean {
  const actualLines = actual.trim().split('\n');
  const expectedLines = expected.trim().split('\n');
  if (actualLines.length !== expectedLines.length) return false;
  return actualLines.every((line, index) => {
    const a = line.trim();
    const b = expectedLines[index].trim();
    if (a === b) return true;
    // As many tokens, each pair decimals of equal value.
    return everyTokenPair(a, b, (x, y) => {
      if (x === y) return isDecimal(x);
      const value = canonicalDecimal(x);
      return value !== null && value === canonicalDecimal(y);
    });
  });
}

/**
 * Whether two trimmed texts have as many whitespace tokens and `same` holds for each pair: `a.split(/\s+/)`
 * against `b.split(/\s+/)`, in one pass and without the arrays (the regular expression split took 190 ms
 * for the 512k tokens of a 1 MiB line). Stops at the first pair that differs.
 */
function everyTokenPair(a: string, b: string, same: (x: string, y: string) => boolean): boolean {
  let i = 0;
  let j = 0;
  for (;;) {
    let iEnd = i;
    while (iEnd < a.length && !isSpace(a.charCodeAt(iEnd))) iEnd++;
    let jEnd = j;
    while (jEnd < b.length && !isSpace(b.charCodeAt(jEnd))) jEnd++;
    if (!same(a.slice(i, iEnd), b.slice(j, jEnd))) return false;
    const aDone = iEnd === a.length;
    const bDone = jEnd === b.length;
    if (aDone || bDone) return aDone && bDone;
    // Trimmed texts: a token follows every run of whitespace.
    i = iEnd;
    while (isSpace(a.charCodeAt(i))) i++;
    j = jEnd;
    while (isSpace(b.charCodeAt(j))) j++;
  }
}

const isDigit = (code: number) => code >= 48 && code <= 57;

/**
 * A canonical string for a finite decimal token ('1.50' → '15e-1', '-0' → '0'), or null when the token is
 * not a decimal (`[+-]?\d*(\.\d*)?([eE][+-]?\d+)?` with at least one digit before the exponent). Two
 * tokens are numerically equal exactly when their canonical strings are equal. One pass over the token;
 * the exponent is exact however many digits it has.
 */
export function canonicalDecimal(token: string): string | null {
  const parts = decimalParts(token);
  if (parts === null) return null;
  const { negative, wholeStart, wholeEnd, fractionStart, fractionEnd } = parts;
  const { exponentNegative, exponentStart, exponentEnd } = parts;
  const fractionLength = fractionEnd - fractionStart;
  // The significant digits: whole + fraction without leading and trailing zeros.
  const digits = token.slice(wholeStart, wholeEnd) + token.slice(fractionStart, fractionEnd);
  let first = 0;
  while (first < digits.length && digits.charCodeAt(first) === 48) first++;
  if (first === digits.length) return '0';
  let last = digits.length;
  while (digits.charCodeAt(last - 1) === 48) last--;
  const trailing = digits.length - last;
  const exponent = addToInteger(
    exponentNegative,
    token.slice(exponentStart, exponentEnd),
    trailing - fractionLength,
  );
  return `${negative ? '-' : ''}${digits.slice(first, last)}e${exponent}`;
}

interface DecimalParts {
  negative: boolean;
  wholeStart: number;
  wholeEnd: number;
  fractionStart: number;
  fractionEnd: number;
  exponentNegative: boolean;
  exponentStart: number;
  exponentEnd: number;
}

/** Where the parts of a decimal token are, or null when it is not one (one pass, no regular expression). */
function decimalParts(token: string): DecimalParts | null {
  const n = token.length;
  let i = 0;
  const negative = n > 0 && token.charCodeAt(0) === 45; // '-'
  if (negative || (n > 0 && token.charCodeAt(0) === 43)) i++; // '+'
  const wholeStart = i;
  while (i < n && isDigit(token.charCodeAt(i))) i++;
  const wholeEnd = i;
  let fractionStart = i;
  let fractionEnd = i;
  if (i < n && token.charCodeAt(i) === 46) {
    // '.'
    fractionStart = ++i;
    while (i < n && isDigit(token.charCodeAt(i))) i++;
    fractionEnd = i;
  }
  let exponentNegative = false;
  let exponentStart = i;
  let exponentEnd = i;
  if (i < n && (token.charCodeAt(i) === 101 || token.charCodeAt(i) === 69)) {
    // 'e' | 'E', then [+-]?\d+
    i++;
    const sign = i < n ? token.charCodeAt(i) : -1;
    if (sign === 45 || sign === 43) {
      exponentNegative = sign === 45;
      i++;
    }
    exponentStart = i;
    while (i < n && isDigit(token.charCodeAt(i))) i++;
    exponentEnd = i;
    if (exponentEnd === exponentStart) return null;
  }
  if (i !== n) return null;
  if (wholeEnd === wholeStart && fractionEnd === fractionStart) return null;
  return {
    negative,
    wholeStart,
    wholeEnd,
    fractionStart,
    fractionEnd,
    exponentNegative,
    exponentStart,
    exponentEnd,
  };
}

/** Whether `token` is a decimal (canonicalDecimal would not return null). */
export function isDecimal(token: string): boolean {
  return decimalParts(token) !== null;
}

/**
 * `String(BigInt(sign + digits) + BigInt(delta))` for a decimal integer of any length and a small delta
 * (|delta| < 2^31), in time linear in its digits (BigInt parsing and printing are not).
 */
function addToInteger(negative: boolean, digits: string, delta: number): string {
  let first = 0;
  while (first < digits.length && digits.charCodeAt(first) === 48) first++;
  const magnitude = digits.slice(first);
  if (magnitude.length <= 15) {
    // |value| < 10^15 + 2^31 < 2^53: exact in a double.
    return String((negative ? -Number(magnitude || '0') : Number(magnitude || '0')) + delta);
  }
  // |value| >= 10^15 > |delta|: the sign is the integer's, and only the magnitude changes, by ±delta.
  const change = negative ? -delta : delta;
  const high = magnitude.slice(0, -15);
  let low = Number(magnitude.slice(-15)) + change;
  let top = high;
  if (low >= 1e15) {
    low -= 1e15;
    top = stepDecimal(high, 1);
  } else if (low < 0) {
    low += 1e15;
    top = stepDecimal(high, -1);
  }
  let result = top + String(low).padStart(15, '0');
  let lead = 0;
  while (lead < result.length - 1 && result.charCodeAt(lead) === 48) lead++;
  result = result.slice(lead);
  return negative ? `-${result}` : result;
}

/** A positive decimal integer (no sign) plus or minus one; never called to go below zero. */
function stepDecimal(digits: string, step: 1 | -1): string {
  const rollover = step === 1 ? 57 : 48; // a '9' carries, a '0' borrows
  let i = digits.length - 1;
  while (i >= 0 && digits.charCodeAt(i) === rollover) i--;
  const rolled = (step === 1 ? '0' : '9').repeat(digits.length - 1 - i);
  if (i < 0) return `1${rolled}`; // all nines (a borrow never gets here: the number is positive)
  return digits.slice(0, i) + String.fromCharCode(digits.charCodeAt(i) + step) + rolled;
}

function compareTokens(actual: string, expected: string, tolerance: Tolerance): boolean {
  return everyTokenPair(actual.trim(), expected.trim(), (token, other) => {
    if (token === other) return true;
    if (!isDecimal(token) || !isDecimal(other)) return false;
    return close(Number(token), Number(other), tolerance);
  });
}

function close(a: number, b: number, { relTol, absTol }: Tolerance): boolean {
  if (!Number.isFinite(a) || !Number.isFinite(b)) return a === b;
  return Math.abs(a - b) <= Math.max(absTol, relTol * Math.max(Math.abs(a), Math.abs(b)));
}

/** Deep equality of JSON values; numbers within tolerance in 'float' mode, else exactly equal. */
export function compareJson(
  actual: unknown,
  expected: unknown,
  mode: CompareMode,
  tolerance: Tolerance,
): boolean {
  if (typeof actual === 'number' && typeof expected === 'number') {
    return mode === 'float' ? close(actual, expected, tolerance) : actual === expected;
  }
  if (Array.isArray(actual) || Array.isArray(expected)) {
    if (!Array.isArray(actual) || !Array.isArray(expected) || actual.length !== expected.length) return false;
    return actual.every((item, index) => compareJson(item, expected[index], mode, tolerance));
  }
  if (actual !== null && expected !== null && typeof actual === 'object' && typeof expected === 'object') {
    const aKeys = Object.keys(actual).sort();
    const bKeys = Object.keys(expected).sort();
    if (aKeys.length !== bKeys.length || aKeys.some((key, index) => key !== bKeys[index])) return false;
    return aKeys.every((key) =>
      compareJson(
        (actual as Record<string, unknown>)[key],
        (expected as Record<string, unknown>)[key],
        mode,
        tolerance,
      ),
    );
  }
  return actual === expected;
}
