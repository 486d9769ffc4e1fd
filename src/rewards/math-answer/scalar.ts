// Equivalence of two scalar expressions (MathJSON): rules 4, 5 and 7 of compare.ts.
//   - exact rationals compare exactly (BigInt; no absolute tolerance, so 1/2004! ≠ 1/2006!);
//   - with a decimal literal on either side: relative tolerance `relTol`, or the decimal (≥ 6 significant
//     digits) being the exact value correctly rounded at its written precision (Math-Verify v0.8.0 rounds
//     both sides to 6 decimals, an absolute rule; Qwen's math_equal uses rel_tol 1e-4);
//   - other constants (π, √2): float64, relative 1e-12;
//   - with variables: seeded random-point identity testing, compute-engine's simplify(a − b) = 0 only for
//     operators our evaluator lacks (Math-Verify: sympy simplify first);
//   - percent on one side only: p and p/100 both match (Qwen's include_percentage; Math-Verify: p/100 only).

import { ComputeEngine } from '@cortex-js/compute-engine';
import { Rng } from '../../core/rng.ts';
import { canonicalKey } from './canonical.ts';
import {
  decimalToRational,
  exactValue,
  type Json,
  type Rational,
  ratEqual,
  rational,
  TooLargeError,
  UnsupportedError,
} from './evaluate.ts';
import { type Complex, freeSymbols, hasFloatLiteral, numericValue } from './numeric-value.ts';
import type { MathNode } from './parse.ts';

export interface CompareOptions {
  /** Relative tolerance when a decimal literal is involved. */
  relTol: number;
  /** The fewest significant digits a decimal literal needs to count as the exact value correctly rounded. */
  roundedDigits: number;
  /** A gold in set form (interval, union) also accepts a one-variable relation (Math-Verify's
   * allow_set_relation_comp); a relation gold always accepts a set-form prediction. */
  setRelations: boolean;
}

export const DEFAULT_COMPARE: CompareOptions = { relTol: 1e-6, roundedDigits: 6, setRelations: false };

export const RANDOM_POINTS = 8;
export const MIN_DEFINED_POINTS = 3;
export const POINT_TOLERANCE = 1e-8;
const EXACT_IRRATIONAL_TOLERANCE = 1e-12;
export const SEED = 0x6d617468; // 'math'

let engine: ComputeEngine | null = null;

export type ExprNode = MathNode & { kind: 'expr' };
export const expr = (json: Json): ExprNode => ({ kind: 'expr', json, percent: false });

export function infinitySign(json: Json): number {
  if (json === 'PositiveInfinity' || json === 'ComplexInfinity') return 1;
  if (json === 'NegativeInfinity') return -1;
  if (Array.isArray(json) && json[0] === 'Negate' && json.length === 2) return -infinitySign(json[1]);
  if (Array.isArray(json) && json[0] === 'Delimiter' && json.length === 2) return infinitySign(json[1]);
  return 0;
}

export function randomPoint(variables: string[], rng: Rng, trial: number): Record<string, Complex> {
  const env: Record<string, Complex> = {};
  // Mostly positive points (logs, roots, factorial-free domains), a few negative ones.
  for (const variable of variables) {
    const magnitude = 0.35 + 2.3 * rng.next();
    env[variable] = [trial < RANDOM_POINTS - 3 ? magnitude : -magnitude, 0];
  }
  return env;
}

export const isFiniteComplex = (z: Complex) => Number.isFinite(z[0]) && Number.isFinite(z[1]);

export function exprEqual(
  gold: MathNode & { kind: 'expr' },
  pred: MathNode & { kind: 'expr' },
  options: CompareOptions,
): boolean {
  if (gold.percent === pred.percent) return exprCore(gold.json, pred.json, options);
  // `p%` on one side only: accept p and p/100.
  if (exprCore(gold.json, pred.json, options)) return true;
  return gold.percent
    ? exprCore(hundredth(gold.json), pred.json, options)
    : exprCore(gold.json, hundredth(pred.json), options);
}

/** p/100; a decimal literal stays a literal ('16.6667' → 0.166667) so the rounding rule still sees its digits. */
function hundredth(json: Json): Json {
  if (typeof json === 'number' && !Number.isInteger(json)) return Number(`${json}e-2`);
  return ['Divide', json, 100];
}

function exprCore(a: Json, b: Json, options: CompareOptions): boolean {
  if (JSON.stringify(a) === JSON.stringify(b)) return true;
  const variables = freeSymbols(a, freeSymbols(b));
  // With variables: an identity by evaluation, or failing that (sums and products over bound indices, which
  // do not evaluate) the same expression up to the order of + and × operands (canonical.ts).
  if (variables.size > 0) return identity(a, b, [...variables].sort()) || canonicalKey(a) === canonicalKey(b);
  const aInfinite = infinitySign(a);
  const bInfinite = infinitySign(b);
  if (aInfinite !== 0 || bInfinite !== 0) return aInfinite === bInfinite;
  const float = hasFloatLiteral(a) || hasFloatLiteral(b);
  let exactA: Rational | null = null;
  let exactB: Rational | null = null;
  let tooLarge: TooLargeError | null = null;
  try {
    exactA = exactValue(a);
    exactB = exactValue(b);
  } catch (error) {
    if (error instanceof RangeError) return false; // division by zero, negative factorial
    if (!(error instanceof TooLargeError)) throw error;
    tooLarge = error;
  }
  if (exactA && exactB) {
    if (ratEqual(exactA, exactB)) return true;
    if (!float) return false;
    return (
      relativelyClose(exactA, exactB, options.relTol) ||
      correctlyRounded(b, exactA, options.roundedDigits) ||
      correctlyRounded(a, exactB, options.roundedDigits)
    );
  }
  let va: Complex;
  let vb: Complex;
  try {
    va = numericValue(a);
    vb = numericValue(b);
  } catch (error) {
    if (error instanceof UnsupportedError) return simplifiesToZero(a, b);
    throw error;
  }
  if (!isFiniteComplex(va) || !isFiniteComplex(vb)) {
    if (tooLarge) throw tooLarge;
    return false;
  }
  const tolerance = float ? options.relTol : EXACT_IRRATIONAL_TOLERANCE;
  const scale = Math.max(Math.hypot(va[0], va[1]), Math.hypot(vb[0], vb[1]));
  if (Math.hypot(va[0] - vb[0], va[1] - vb[1]) <= tolerance * scale) return true;
  // sin(π) vs 0: float64 cannot tell; ask compute-engine when one side is exactly zero.
  if (!float && scale < 1e-9 && (isExactZero(exactA) || isExactZero(exactB))) return simplifiesToZero(a, b);
  return false;
}

const isExactZero = (value: Rational | null) => value !== null && value.n === 0n;

function relativelyClose(a: Rational, b: Rational, relTol: number): boolean {
  const difference = rational(a.n * b.d - b.n * a.d, a.d * b.d);
  const absolute = (x: Rational) => (x.n < 0n ? -x.n : x.n) * 1n;
  // |a − b| ≤ relTol · max(|a|, |b|), in exact arithmetic with relTol as a decimal.
  const tolerance = decimalToRational(relTol.toExponential(15));
  const maxAbs = absolute(a) * b.d > absolute(b) * a.d ? a : b;
  const left = absolute(difference) * maxAbs.d * tolerance.d;
  const right = tolerance.n * absolute(maxAbs) * difference.d;
  return left <= right;
}

/** `decimal` is a decimal literal with ≥ `minDigits` significant digits equal to `exact` rounded at its
 * precision. */
function correctlyRounded(decimal: Json, exact: Rational, minDigits: number): boolean {
  let text: string;
  if (typeof decimal === 'number') text = String(decimal);
  else if (Array.isArray(decimal) && decimal[0] === 'Negate' && typeof decimal[1] === 'number')
    text = `-${decimal[1]}`;
  else return false;
  const match = /^-?(\d+)\.(\d+)$/.exec(text);
  if (!match) return false;
  const significant = (match[1] + match[2]).replace(/^0+/, '').length;
  if (significant < minDigits) return false;
  const places = BigInt(match[2].length);
  const scale = 10n ** places;
  // round half away from zero: floor(|x|·10^d + 1/2)
  const magnitude = exact.n < 0n ? -exact.n : exact.n;
  const rounded = (2n * magnitude * scale + exact.d) / (2n * exact.d);
  const expected = exact.n < 0n ? -rounded : rounded;
  const literal = decimalToRational(text);
  return ratEqual(literal, rational(expected, scale));
}

/** Random-point identity test for expressions with free variables. */
function identity(a: Json, b: Json, variables: string[]): boolean {
  const rng = new Rng(SEED);
  let defined = 0;
  for (let trial = 0; trial < RANDOM_POINTS; trial++) {
    const env = randomPoint(variables, rng, trial);
    let va: Complex;
    let vb: Complex;
    try {
      va = numericValue(a, env);
      vb = numericValue(b, env);
    } catch (error) {
      if (error instanceof UnsupportedError) return simplifiesToZero(a, b);
      throw error;
    }
    if (!isFiniteComplex(va) || !isFiniteComplex(vb)) continue;
    // One side real, the other complex: outside one side's real domain (ln(ab) vs ln a + ln b at a, b < 0).
    if (Math.abs(va[1]) > 1e-12 !== Math.abs(vb[1]) > 1e-12) continue;
    const scale = Math.max(Math.hypot(va[0], va[1]), Math.hypot(vb[0], vb[1]));
    if (va[0] === 0 && va[1] === 0 && vb[0] === 0 && vb[1] === 0) {
      defined++; // both exactly zero (x - x vs 0)
      continue;
    }
    if (scale < 1e-12) continue; // both ~0 here but not exactly: no evidence either way
    if (Math.hypot(va[0] - vb[0], va[1] - vb[1]) > POINT_TOLERANCE * scale) return false;
    defined++;
  }
  if (defined >= MIN_DEFINED_POINTS) return true;
  return simplifiesToZero(a, b);
}

/** compute-engine's simplify(a − b) = 0, the last resort for operators our evaluator does not know. */
function simplifiesToZero(a: Json, b: Json): boolean {
  engine ??= new ComputeEngine();
  try {
    const difference = engine.box(['Subtract', a, b] as never).simplify();
    return difference.json === 0;
  } catch {
    return false;
  }
}
