// Equivalence of a gold answer and a predicted answer, both parsed into MathNode trees (parse.ts).
// Order of rules, after Math-Verify v0.8.0's grader.py:
//   1. assignments unwrap (`x = 3` ≡ `3`; a chain `a = b = 11` keeps its last right-hand side) when the other
//      side is not an equation; two assignments to the same variable compare their right-hand sides;
//   2. a gold relation becomes a set only when the prediction is in set form (`-2 \le x \le 7` ≡ `[-2, 7]`,
//      never the reverse: echoing the inequality of the question must not score);
//   3. structures recurse: sets and bare lists order-free, tuples and matrices positional, intervals by
//      endpoints and openness (openness at ±∞ ignored), unions order-free;
//   4. numbers: exact rationals compare exactly (BigInt; no absolute tolerance, so 1/2004! ≠ 1/2006!); if
//      either side has a decimal literal, relative tolerance `relTol` (default 1e-6) or, when the decimal has
//      at least 6 significant digits, being the exact value correctly rounded at its written precision
//      (so 0.166667 ≡ 1/6, as Math-Verify's 6-decimal rounding allows); other constants (π, √2) compare in
//      float64 with relative 1e-12;
//   5. expressions with variables: seeded random-point identity testing (8 points, ≥ 3 must be defined, all
//      defined ones must agree to 1e-8); only when our evaluator does not know an operator do we fall back to
//      compute-engine's simplify(a − b) = 0 (Math-Verify's last step);
//   6. equations: lhs − rhs proportional by a nonzero constant (2x + 4y − 3 = 0 ≡ y = −x/2 + 3/4);
//      inequalities: flipped forms normalised (x ≤ 5 ≡ 5 ≥ x), proportional by a positive constant, same
//      strictness.
// Percent: `p%` on one side only matches both `p` and `p/100` (Qwen's include_percentage; Math-Verify reads
// % as /100 only). Deviation from Math-Verify: random points instead of sympy.simplify as the main symbolic
// test (cheaper, no hangs, and it refuses sqrt(x^2) ≡ x, which simplify may accept).
import { ComputeEngine } from '@cortex-js/compute-engine';
import { Rng } from '../../core/rng.ts';
import {
  type Complex,
  decimalToRational,
  exactValue,
  freeSymbols,
  hasFloatLiteral,
  type Json,
  numericValue,
  type Rational,
  ratEqual,
  rational,
  TooLargeError,
  UnsupportedError,
} from './evaluate.ts';
import { jsonToNode, type MathNode, type RelationOp, relationLinks } from './parse.ts';

export interface CompareOptions {
  /** Relative tolerance when a decimal literal is involved. */
  relTol: number;
}

const RANDOM_POINTS = 8;
const MIN_DEFINED_POINTS = 3;
const POINT_TOLERANCE = 1e-8;
const EXACT_IRRATIONAL_TOLERANCE = 1e-12;
const SEED = 0x6d617468; // 'math'

let engine: ComputeEngine | null = null;

/** Are `gold` and `pred` equivalent answers? Throws TooLargeError for numbers too big to compare. */
export function nodesEqual(gold: MathNode, pred: MathNode, options: CompareOptions): boolean {
  // 1. assignments; `(x, y) = (3, 4)` reads as the tuple (3, 4)
  pred = tupleAssignment(pred) ?? pred;
  gold = tupleAssignment(gold) ?? gold;
  const goldAssignment = assignment(gold);
  const predAssignment = assignment(pred);
  if (goldAssignment && predAssignment && goldAssignment.variable === predAssignment.variable) {
    return exprEqual(expr(goldAssignment.value), expr(predAssignment.value), options);
  }
  if (goldAssignment && pred.kind !== 'relation')
    return nodesEqual(expr(goldAssignment.value), pred, options);
  if (predAssignment && gold.kind !== 'relation')
    return nodesEqual(gold, expr(predAssignment.value), options);
  // A worked constant chain `\frac{6}{8} = \frac{3}{4}` answers with its last value.
  if (gold.kind !== 'relation') pred = constantChainValue(pred) ?? pred;

  // 2. relation → set, only when the prediction is in set form
  if (
    gold.kind === 'tuple' &&
    gold.delimiter === 'bare' &&
    gold.items.every((item) => item.kind === 'relation' && item.op !== 'Equal')
  ) {
    // 'x < 1, x > 3' (from 'x < 1 or x > 3' after normalisation) reads as a disjunction
    if (isSetForm(pred)) gold = { kind: 'or', items: gold.items };
  }
  if ((gold.kind === 'relation' || gold.kind === 'or') && isSetForm(pred)) {
    const asSet = relationToSet(gold);
    return asSet !== null && nodesEqual(asSet, pred, options);
  }

  switch (gold.kind) {
    case 'expr':
      if (pred.kind === 'expr') return exprEqual(gold, pred, options);
      if (pred.kind === 'text') return false;
      // `\{5\}` or `(5)` for 5
      if ((pred.kind === 'set' || pred.kind === 'tuple') && pred.items.length === 1) {
        return nodesEqual(gold, pred.items[0], options);
      }
      return false;
    case 'text':
      return pred.kind === 'text' && pred.value === gold.value;
    case 'relation':
      return pred.kind === 'relation' && relationsEqual(gold, pred, options);
    case 'or':
      return pred.kind === 'or' && unorderedEqual(gold.items, pred.items, options);
    case 'set':
      if (pred.kind === 'set' || pred.kind === 'tuple')
        return unorderedEqual(gold.items, pred.items, options);
      if (pred.kind === 'interval' || pred.kind === 'union') return false;
      return gold.items.length === 1 && nodesEqual(gold.items[0], pred, options);
    case 'tuple': {
      if (pred.kind === 'interval' || pred.kind === 'union') {
        const asInterval = tupleAsInterval(gold);
        return asInterval !== null && nodesEqual(asInterval, pred, options);
      }
      if (pred.kind === 'set') return unorderedEqual(gold.items, pred.items, options);
      if (pred.kind !== 'tuple') return gold.items.length === 1 && nodesEqual(gold.items[0], pred, options);
      if (gold.delimiter === 'bare' || pred.delimiter === 'bare') {
        return unorderedEqual(gold.items, pred.items, options);
      }
      if ((gold.delimiter === ':') !== (pred.delimiter === ':')) return false;
      return orderedEqual(gold.items, pred.items, options);
    }
    case 'interval': {
      const predInterval = pred.kind === 'tuple' ? tupleAsInterval(pred) : pred;
      if (predInterval?.kind === 'union' && predInterval.items.length === 1) {
        return nodesEqual(gold, predInterval.items[0], options);
      }
      if (predInterval?.kind !== 'interval') return false;
      return intervalsEqual(gold, predInterval, options);
    }
    case 'union': {
      if (pred.kind === 'union') return unorderedEqual(gold.items, pred.items, options);
      return gold.items.length === 1 && nodesEqual(gold.items[0], pred, options);
    }
    case 'matrix': {
      if (pred.kind !== 'matrix' || pred.rows.length !== gold.rows.length) return false;
      return gold.rows.every((row, i) => orderedEqual(row, pred.rows[i], options));
    }
  }
}

type ExprNode = MathNode & { kind: 'expr' };
const expr = (json: Json): ExprNode => ({ kind: 'expr', json, percent: false });

function tupleAssignment(node: MathNode): MathNode | null {
  if (node.kind !== 'relation' || node.op !== 'Equal' || node.args.length !== 2) return null;
  const left = jsonToNode(node.args[0]);
  const right = jsonToNode(node.args[1]);
  if (left.kind !== 'tuple' || right.kind !== 'tuple' || left.items.length !== right.items.length)
    return null;
  return left.items.every((item) => item.kind === 'expr' && isVariable(item.json)) ? right : null;
}

/** `2 + 3 = 5`: an equation chain whose sides are all constants reads as its last right-hand side. */
function constantChainValue(node: MathNode): MathNode | null {
  if (node.kind !== 'relation' || node.op !== 'Equal') return null;
  const links = relationLinks(node.op, node.args);
  if (links.length === 0 || links.some((link) => link.op !== 'Equal')) return null;
  const constant = (json: Json) => freeSymbols(json).size === 0 && jsonToNode(json).kind === 'expr';
  if (!links.every((link) => constant(link.left) && constant(link.right))) return null;
  return expr(links[links.length - 1].right);
}

function isVariable(json: Json): json is string {
  return typeof json === 'string' && !json.startsWith("'") && freeSymbols(json).size === 1;
}

/** `x = 3`, `f(x) = …` with a simple left side, or a chain `a = b = 11` (first lhs, last rhs). */
function assignment(node: MathNode): { variable: string; value: Json } | null {
  if (node.kind !== 'relation' || node.op !== 'Equal') return null;
  const links = relationLinks(node.op, node.args);
  if (links.length === 0 || links.some((link) => link.op !== 'Equal')) return null;
  const left = links[0].left;
  if (!isVariable(left)) return null;
  return { variable: left, value: links[links.length - 1].right };
}

/** Set notation: an interval, a union, a set, or a two-item (…)/[…] that reads as an interval. */
function isSetForm(node: MathNode): boolean {
  if (node.kind === 'tuple')
    return node.items.length === 2 && (node.delimiter === '()' || node.delimiter === '[]');
  return node.kind === 'interval' || node.kind === 'union' || node.kind === 'set';
}

function tupleAsInterval(node: MathNode & { kind: 'tuple' }): MathNode | null {
  if (node.items.length !== 2 || node.delimiter === 'bare' || node.delimiter === ':') return null;
  const [lower, upper] = node.items;
  if (lower.kind !== 'expr' || upper.kind !== 'expr') return null;
  const open = node.delimiter === '()';
  return { kind: 'interval', lower: lower.json, upper: upper.json, lowerOpen: open, upperOpen: open };
}

function orderedEqual(gold: MathNode[], pred: MathNode[], options: CompareOptions): boolean {
  return gold.length === pred.length && gold.every((item, i) => nodesEqual(item, pred[i], options));
}

/** Order-free equality: a perfect matching between the items (augmenting paths; lists are short). */
function unorderedEqual(gold: MathNode[], pred: MathNode[], options: CompareOptions): boolean {
  if (gold.length !== pred.length) return false;
  const equal = gold.map((g) => pred.map((p) => nodesEqual(g, p, options)));
  const matchOfPred = new Array<number>(pred.length).fill(-1);
  const tryAssign = (i: number, seen: boolean[]): boolean => {
    for (let j = 0; j < pred.length; j++) {
      if (!equal[i][j] || seen[j]) continue;
      seen[j] = true;
      if (matchOfPred[j] < 0 || tryAssign(matchOfPred[j], seen)) {
        matchOfPred[j] = i;
        return true;
      }
    }
    return false;
  };
  return gold.every((_, i) => tryAssign(i, new Array<boolean>(pred.length).fill(false)));
}

function infinitySign(json: Json): number {
  if (json === 'PositiveInfinity' || json === 'ComplexInfinity') return 1;
  if (json === 'NegativeInfinity') return -1;
  if (Array.isArray(json) && json[0] === 'Negate' && json.length === 2) return -infinitySign(json[1]);
  if (Array.isArray(json) && json[0] === 'Delimiter' && json.length === 2) return infinitySign(json[1]);
  return 0;
}

function intervalsEqual(
  gold: MathNode & { kind: 'interval' },
  pred: MathNode & { kind: 'interval' },
  options: CompareOptions,
): boolean {
  const endpointEqual = (a: Json, b: Json, aOpen: boolean, bOpen: boolean): boolean => {
    const aInfinite = infinitySign(a);
    if (aInfinite !== 0 || infinitySign(b) !== 0) return aInfinite === infinitySign(b);
    return aOpen === bOpen && exprEqual(expr(a), expr(b), options);
  };
  return (
    endpointEqual(gold.lower, pred.lower, gold.lowerOpen, pred.lowerOpen) &&
    endpointEqual(gold.upper, pred.upper, gold.upperOpen, pred.upperOpen)
  );
}

// ---------- relations ----------

const NEGATIVE_INFINITY: Json = ['Negate', 'PositiveInfinity'];

/** A one-variable relation as a set: x ≤ 5 → (−∞, 5]; −2 ≤ x < 7 → [−2, 7); x ≠ 3 → two rays; or → union. */
function relationToSet(node: MathNode): MathNode | null {
  if (node.kind === 'or') {
    const parts = node.items.map(relationToSet);
    if (parts.some((part) => part === null)) return null;
    return {
      kind: 'union',
      items: parts.flatMap((part) => (part!.kind === 'union' ? part!.items : [part!])),
    };
  }
  if (node.kind !== 'relation') return null;
  const variables = new Set<string>();
  for (const arg of node.args) freeSymbols(arg, variables);
  if (variables.size !== 1) return null;
  const [variable] = variables;
  const links = relationLinks(node.op, node.args).map(orient);
  let lower: Json = NEGATIVE_INFINITY;
  let upper: Json = 'PositiveInfinity';
  let lowerOpen = true;
  let upperOpen = true;
  for (const link of links) {
    if (link.op === 'Equal' && link.left === variable && freeSymbols(link.right).size === 0) {
      return links.length === 1 ? { kind: 'set', items: [expr(link.right)] } : null;
    }
    if (
      link.op === 'NotEqual' &&
      link.left === variable &&
      freeSymbols(link.right).size === 0 &&
      links.length === 1
    ) {
      return {
        kind: 'union',
        items: [
          { kind: 'interval', lower: NEGATIVE_INFINITY, upper: link.right, lowerOpen: true, upperOpen: true },
          {
            kind: 'interval',
            lower: link.right,
            upper: 'PositiveInfinity',
            lowerOpen: true,
            upperOpen: true,
          },
        ],
      };
    }
    // After orient(), only Less/LessEqual remain: left < right.
    if (link.op !== 'Less' && link.op !== 'LessEqual') return null;
    const strict = link.op === 'Less';
    if (link.left === variable && freeSymbols(link.right).size === 0) {
      upper = link.right;
      upperOpen = strict;
    } else if (link.right === variable && freeSymbols(link.left).size === 0) {
      lower = link.left;
      lowerOpen = strict;
    } else {
      return null;
    }
  }
  return { kind: 'interval', lower, upper, lowerOpen, upperOpen };
}

/** Greater/GreaterEqual flipped into Less/LessEqual. */
function orient(link: { op: RelationOp; left: Json; right: Json }): {
  op: RelationOp;
  left: Json;
  right: Json;
} {
  if (link.op === 'Greater') return { op: 'Less', left: link.right, right: link.left };
  if (link.op === 'GreaterEqual') return { op: 'LessEqual', left: link.right, right: link.left };
  return link;
}

function relationsEqual(
  gold: MathNode & { kind: 'relation' },
  pred: MathNode & { kind: 'relation' },
  options: CompareOptions,
): boolean {
  const goldLinks = relationLinks(gold.op, gold.args).map(orient);
  const predLinks = relationLinks(pred.op, pred.args).map(orient);
  if (goldLinks.length !== predLinks.length) return false;
  const used = new Array<boolean>(predLinks.length).fill(false);
  return goldLinks.every((g) => {
    const j = predLinks.findIndex((p, k) => !used[k] && p.op === g.op && linksEquivalent(g, p, options));
    if (j < 0) return false;
    used[j] = true;
    return true;
  });
}

function linksEquivalent(
  gold: { op: RelationOp; left: Json; right: Json },
  pred: { op: RelationOp; left: Json; right: Json },
  options: CompareOptions,
): boolean {
  // Same sides (fast, and tolerant of decimals): a = b vs a = b.
  if (
    exprEqual(expr(gold.left), expr(pred.left), options) &&
    exprEqual(expr(gold.right), expr(pred.right), options)
  ) {
    return true;
  }
  const symmetric = gold.op === 'Equal' || gold.op === 'NotEqual';
  if (
    symmetric &&
    exprEqual(expr(gold.left), expr(pred.right), options) &&
    exprEqual(expr(gold.right), expr(pred.left), options)
  ) {
    return true;
  }
  const f: Json = ['Subtract', gold.left, gold.right];
  const g: Json = ['Subtract', pred.left, pred.right];
  return proportional(f, g, symmetric ? 'any' : 'positive');
}

/** f = c·g for a constant c ≠ 0 (c > 0 when `sign` is 'positive'), tested at seeded random points. */
function proportional(f: Json, g: Json, sign: 'any' | 'positive'): boolean {
  const variables = [...freeSymbols(f, freeSymbols(g))].sort();
  const rng = new Rng(SEED);
  let ratio: number | null = null;
  let defined = 0;
  for (let trial = 0; trial < RANDOM_POINTS; trial++) {
    const env = randomPoint(variables, rng, trial);
    let a: Complex;
    let b: Complex;
    try {
      a = numericValue(f, env);
      b = numericValue(g, env);
    } catch (error) {
      if (error instanceof UnsupportedError) return false;
      throw error;
    }
    if (!isFiniteComplex(a) || !isFiniteComplex(b) || Math.abs(a[1]) > 1e-12 || Math.abs(b[1]) > 1e-12)
      continue;
    const aTiny = Math.abs(a[0]) < 1e-12;
    const bTiny = Math.abs(b[0]) < 1e-12;
    if (aTiny && bTiny) continue;
    if (aTiny !== bTiny) return false;
    const r = a[0] / b[0];
    if (ratio === null) ratio = r;
    else if (Math.abs(r - ratio) > POINT_TOLERANCE * Math.max(Math.abs(r), Math.abs(ratio))) return false;
    defined++;
  }
  if (ratio === null || defined < MIN_DEFINED_POINTS) return false;
  return sign === 'any' ? ratio !== 0 : ratio > 0;
}

// ---------- scalar expressions ----------

function randomPoint(variables: string[], rng: Rng, trial: number): Record<string, Complex> {
  const env: Record<string, Complex> = {};
  // Mostly positive points (logs, roots, factorial-free domains), a few negative ones.
  for (const variable of variables) {
    const magnitude = 0.35 + 2.3 * rng.next();
    env[variable] = [trial < RANDOM_POINTS - 3 ? magnitude : -magnitude, 0];
  }
  return env;
}

const isFiniteComplex = (z: Complex) => Number.isFinite(z[0]) && Number.isFinite(z[1]);

function exprEqual(
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
  if (variables.size > 0) return identity(a, b, [...variables].sort());
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
      correctlyRounded(b, exactA) ||
      correctlyRounded(a, exactB)
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

/** `decimal` is a decimal literal with ≥ 6 significant digits equal to `exact` rounded at its precision. */
function correctlyRounded(decimal: Json, exact: Rational): boolean {
  let text: string;
  if (typeof decimal === 'number') text = String(decimal);
  else if (Array.isArray(decimal) && decimal[0] === 'Negate' && typeof decimal[1] === 'number')
    text = `-${decimal[1]}`;
  else return false;
  const match = /^-?(\d+)\.(\d+)$/.exec(text);
  if (!match) return false;
  const significant = (match[1] + match[2]).replace(/^0+/, '').length;
  if (significant < 6) return false;
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
