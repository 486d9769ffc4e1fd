// Relations: equations, inequalities and their conversion to sets (rules 2 and 6 of compare.ts), after
// Math-Verify v0.8.0's grader.py: flipped inequalities are normalised (x ≤ 5 ≡ 5 ≥ x), equations are equal
// when lhs − rhs are proportional (Qwen's math_equal: equal up to sign; Math-Verify also tries `solve`,
// which we do not), and a one-variable relation becomes an interval or union only for set-form predictions.
// Deviation: proportionality is tested at seeded random points rather than symbolically.
import { Rng } from '../../core/rng.ts';
import { type Json, UnsupportedError } from './evaluate.ts';
import { type Complex, freeSymbols, numericValue } from './numeric-value.ts';
import { type MathNode, type RelationOp, relationLinks } from './parse.ts';
import {
  type CompareOptions,
  expr,
  exprEqual,
  isFiniteComplex,
  MIN_DEFINED_POINTS,
  POINT_TOLERANCE,
  RANDOM_POINTS,
  randomPoint,
  SEED,
} from './scalar.ts';

const NEGATIVE_INFINITY: Json = ['Negate', 'PositiveInfinity'];

/** A one-variable relation as a set: x ≤ 5 → (−∞, 5]; −2 ≤ x < 7 → [−2, 7); x ≠ 3 → two rays; or → union. */
export function relationToSet(node: MathNode): MathNode | null {
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
  // The one term the relation bounds: a variable (`0 < x < 1`) or a function of one (`0 < f(x) < 1`).
  const terms = node.args.filter((arg) => freeSymbols(arg).size > 0);
  const keys = new Set(terms.map((arg) => JSON.stringify(arg)));
  const applied = keys.size === 1 && isApplication(terms[0]);
  if (variables.size !== 1 && !applied) return null;
  const key = applied ? JSON.stringify(terms[0]) : JSON.stringify([...variables][0]);
  const isTerm = (json: Json) => JSON.stringify(json) === key;
  const links = relationLinks(node.op, node.args).map(orient);
  let lower: Json = NEGATIVE_INFINITY;
  let upper: Json = 'PositiveInfinity';
  let lowerOpen = true;
  let upperOpen = true;
  for (const link of links) {
    if (link.op === 'Equal' && isTerm(link.left) && freeSymbols(link.right).size === 0) {
      return links.length === 1 ? { kind: 'set', items: [expr(link.right)] } : null;
    }
    if (
      link.op === 'NotEqual' &&
      isTerm(link.left) &&
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
    if (isTerm(link.left) && freeSymbols(link.right).size === 0) {
      upper = link.right;
      upperOpen = strict;
    } else if (isTerm(link.right) && freeSymbols(link.left).size === 0) {
      lower = link.left;
      lowerOpen = strict;
    } else {
      return null;
    }
  }
  return { kind: 'interval', lower, upper, lowerOpen, upperOpen };
}

/** `f(x)` as compute-engine's non-canonical parse writes it: a name applied to a parenthesised argument. */
function isApplication(json: Json): boolean {
  return (
    Array.isArray(json) &&
    json.length === 3 &&
    json[0] === 'InvisibleOperator' &&
    typeof json[1] === 'string' &&
    Array.isArray(json[2]) &&
    json[2][0] === 'Delimiter'
  );
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

export function relationsEqual(
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
