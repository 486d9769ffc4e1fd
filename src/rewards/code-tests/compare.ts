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

function trimNewlines(text: string): string {
  return text.replace(/\n+$/, '');
}

function compareLines(actual: string, expected: string): boolean {
  const actualLines = actual.trim().split('\n');
  const expectedLines = expected.trim().split('\n');
  if (actualLines.length !== expectedLines.length) return false;
  return actualLines.every((line, index) => {
    const a = line.trim();
    const b = expectedLines[index].trim();
    if (a === b) return true;
    const aTokens = a.split(/\s+/);
    const bTokens = b.split(/\s+/);
    if (aTokens.length !== bTokens.length) return false;
    return aTokens.every((token, i) => {
      const x = canonicalDecimal(token);
      return x !== null && x === canonicalDecimal(bTokens[i]);
    });
  });
}

const decimalPattern = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/;

/**
 * A canonical string for a finite decimal token ('1.50' → '15e-1', '-0' → '0'), or null when the token is
 * not a decimal. Two tokens are numerically equal exactly when their canonical strings are equal.
 */
export function canonicalDecimal(token: string): string | null {
  const match = decimalPattern.exec(token);
  if (!match) return null;
  const [, sign, whole, fraction = '', exponentText = '0'] = match;
  if (whole === '' && fraction === '') return null;
  let digits = (whole + fraction).replace(/^0+/, '');
  let exponent = BigInt(exponentText) - BigInt(fraction.length);
  if (digits === '') return '0';
  const trailing = digits.length - digits.replace(/0+$/, '').length;
  digits = digits.slice(0, digits.length - trailing);
  exponent += BigInt(trailing);
  return `${sign === '-' ? '-' : ''}${digits}e${exponent}`;
}

function compareTokens(actual: string, expected: string, tolerance: Tolerance): boolean {
  const aTokens = actual.trim().split(/\s+/);
  const bTokens = expected.trim().split(/\s+/);
  if (aTokens.length !== bTokens.length) return false;
  return aTokens.every((token, index) => {
    const other = bTokens[index];
    if (token === other) return true;
    if (canonicalDecimal(token) === null || canonicalDecimal(other) === null) return false;
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
