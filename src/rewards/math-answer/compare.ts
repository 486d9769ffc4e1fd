// Equivalence of a gold answer and a predicted answer, both parsed into MathNode trees (parse.ts).
// Scalars are compared in scalar.ts, relations in relations.ts; this file holds the structure rules.
// Order of rules, after Math-Verify v0.8.0's grader.py:
//   1. assignments unwrap (`x = 3` ≡ `3`, `AB = 4` ≡ `4`, `|AB| = 1` ≡ `1`; a chain `a = b = 11` keeps its
//      last right-hand side) when the other side is not an equation; two assignments to the same name compare
//      their right-hand sides;
//   2. a gold relation becomes a set only when the prediction is in set form (`-2 \le x \le 7` ≡ `[-2, 7]`,
//      never the reverse: echoing the inequality of the question must not score);
//   3. structures recurse: sets and bare lists order-free, tuples and matrices positional, intervals by
//      endpoints and openness (openness at ±∞ ignored), unions order-free; a tuple is ordered: against a bare
//      list it compares as written, against a set with the set's items in increasing order (Math-Verify,
//      whose SymPy FiniteSet sorts: (1,3) ≡ {1,3}, (3,1) ≢ {1,3});
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
import type { Json } from './evaluate.ts';
import { evaluateMatrix } from './matrix.ts';
import { freeSymbols, numericValue } from './numeric-value.ts';
import { jsonToNode, type MathNode, relationLinks } from './parse.ts';
import { relationsEqual, relationToSet } from './relations.ts';
import { type CompareOptions, expr, exprEqual, infinitySign } from './scalar.ts';

export type { CompareOptions } from './scalar.ts';

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
  // 'x < 1, x > 3' (from 'x < 1 or x > 3' after normalisation) reads as a disjunction
  if (isSetForm(pred)) gold = relationList(gold) ?? gold;
  if ((gold.kind === 'relation' || gold.kind === 'or') && isSetForm(pred)) {
    const asSet = relationToSet(gold);
    return asSet !== null && nodesEqual(asSet, pred, options);
  }
  // ... and the other way only when asked (Math-Verify's allow_set_relation_comp: a set gold, a relation)
  if (options.setRelations && isSetForm(gold)) {
    const relation = relationList(pred) ?? pred;
    if (relation.kind === 'relation' || relation.kind === 'or') {
      const asSet = relationToSet(relation);
      return asSet !== null && nodesEqual(gold, asSet, options);
    }
  }

  // 3.–6. by the kind of the gold answer
  const rule = EQUAL_BY_GOLD_KIND[gold.kind] as KindRule<MathNode['kind']>;
  return rule(gold, pred, options);
}

/** A bare list of inequalities ('x < 1, x > 3', from 'x < 1 or x > 3' after normalisation) as their
 * disjunction; null for anything else. */
function relationList(node: MathNode): MathNode | null {
  if (node.kind !== 'tuple' || node.delimiter !== 'bare') return null;
  if (!node.items.every((item) => item.kind === 'relation' && item.op !== 'Equal')) return null;
  return { kind: 'or', items: node.items };
}

type NodeOf<K extends MathNode['kind']> = Extract<MathNode, { kind: K }>;

/** Equality against a gold answer of kind K, after the assignment and relation rules. */
type KindRule<K extends MathNode['kind']> = (
  gold: NodeOf<K>,
  pred: MathNode,
  options: CompareOptions,
) => boolean;

/** A scalar against a scalar; `\{5\}` or `(5)` for 5. */
function exprNodeEqual(gold: NodeOf<'expr'>, pred: MathNode, options: CompareOptions): boolean {
  if (pred.kind === 'expr') return exprEqual(gold, pred, options);
  if (pred.kind === 'text') return false;
  if ((pred.kind === 'set' || pred.kind === 'tuple') && pred.items.length === 1) {
    return nodesEqual(gold, pred.items[0], options);
  }
  return false;
}

function textNodeEqual(gold: NodeOf<'text'>, pred: MathNode): boolean {
  return pred.kind === 'text' && pred.value === gold.value;
}

function relationNodeEqual(gold: NodeOf<'relation'>, pred: MathNode, options: CompareOptions): boolean {
  return pred.kind === 'relation' && relationsEqual(gold, pred, options);
}

function orNodeEqual(gold: NodeOf<'or'>, pred: MathNode, options: CompareOptions): boolean {
  return pred.kind === 'or' && unorderedEqual(gold.items, pred.items, options);
}

/** Order-free against a set or list; against a tuple of several items, the set's items in increasing order. */
function setNodeEqual(gold: NodeOf<'set'>, pred: MathNode, options: CompareOptions): boolean {
  if (pred.kind === 'tuple' && pred.delimiter === '()' && pred.items.length > 1)
    return orderedEqual(sortedItems(gold.items), pred.items, options);
  if (pred.kind === 'set' || pred.kind === 'tuple') return unorderedEqual(gold.items, pred.items, options);
  if (pred.kind === 'interval' || pred.kind === 'union') return false;
  return gold.items.length === 1 && nodesEqual(gold.items[0], pred, options);
}

function tupleNodeEqual(gold: NodeOf<'tuple'>, pred: MathNode, options: CompareOptions): boolean {
  if (pred.kind === 'interval' || pred.kind === 'union') {
    const asInterval = tupleAsInterval(gold);
    return asInterval !== null && nodesEqual(asInterval, pred, options);
  }
  if (pred.kind === 'set') {
    if (gold.delimiter === '()') return orderedEqual(gold.items, sortedItems(pred.items), options);
    return unorderedEqual(gold.items, pred.items, options);
  }
  if (pred.kind !== 'tuple') return gold.items.length === 1 && nodesEqual(gold.items[0], pred, options);
  // A tuple is ordered: against a bare list, position by position as written ((1,3) ≡ `1, 3`, (3,1) ≢
  // `1, 3`, as in Math-Verify); against a set, see sortedItems.
  if (
    (gold.delimiter === '()') !== (pred.delimiter === '()') &&
    (gold.delimiter === 'bare') !== (pred.delimiter === 'bare')
  )
    return orderedEqual(gold.items, pred.items, options);
  if (gold.delimiter === 'bare' || pred.delimiter === 'bare') {
    return unorderedEqual(gold.items, pred.items, options);
  }
  if ((gold.delimiter === ':') !== (pred.delimiter === ':')) return false;
  return orderedEqual(gold.items, pred.items, options);
}

function intervalNodeEqual(gold: NodeOf<'interval'>, pred: MathNode, options: CompareOptions): boolean {
  const predInterval = pred.kind === 'tuple' ? tupleAsInterval(pred) : pred;
  if (predInterval?.kind === 'union' && predInterval.items.length === 1) {
    return nodesEqual(gold, predInterval.items[0], options);
  }
  if (predInterval?.kind !== 'interval') return false;
  return intervalsEqual(gold, predInterval, options);
}

function unionNodeEqual(gold: NodeOf<'union'>, pred: MathNode, options: CompareOptions): boolean {
  if (pred.kind === 'union') return unorderedEqual(gold.items, pred.items, options);
  return gold.items.length === 1 && nodesEqual(gold.items[0], pred, options);
}

/** Row by row; `A + B`, `2A`, `AB` with the matrices written out by their entries (Math-Verify evaluates them too). */
function matrixNodeEqual(gold: NodeOf<'matrix'>, pred: MathNode, options: CompareOptions): boolean {
  const entries = pred.kind === 'expr' ? evaluateMatrix(pred.json) : null;
  const rows = entries
    ? entries.map((row) => row.map(jsonToNode))
    : pred.kind === 'matrix'
      ? pred.rows
      : null;
  if (!rows || rows.length !== gold.rows.length) return false;
  return gold.rows.every((row, i) => orderedEqual(row, rows[i], options));
}

/** One rule per kind of gold answer (rules 3–6 of the header). */
const EQUAL_BY_GOLD_KIND: { readonly [K in MathNode['kind']]: KindRule<K> } = {
  expr: exprNodeEqual,
  text: textNodeEqual,
  relation: relationNodeEqual,
  or: orNodeEqual,
  set: setNodeEqual,
  tuple: tupleNodeEqual,
  interval: intervalNodeEqual,
  union: unionNodeEqual,
  matrix: matrixNodeEqual,
};

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

const LABEL_HEADS = new Set([
  'InvisibleOperator',
  'Multiply',
  'Abs',
  'Delimiter',
  'Angle',
  'Subscript',
  'Colon',
  'Divide',
]);

/**
 * A name rather than a condition: a variable (`x`), a product of letters (`AB`, `xy`), `|AB|`, `\angle ABC`,
 * `f(x)`, a subscripted name, a ratio of names (`\frac{NO}{BO}`, `V_1:V_2`) — letters only, no number, no
 * sum or power (Math-Verify unwraps `AB = 4`).
 */
export function isLabel(json: Json): boolean {
  if (typeof json === 'string') return isVariable(json);
  if (!Array.isArray(json) || json.length < 2) return false;
  const [head, ...args] = json;
  if (head === 'Subscript') return isLabel(args[0]);
  return typeof head === 'string' && LABEL_HEADS.has(head) && args.every(isLabel);
}

/** `x = 3`, `AB = 4`, `f(x) = …` with a name on the left, or a chain `a = b = 11` (first lhs, last rhs). */
function assignment(node: MathNode): { variable: string; value: Json } | null {
  if (node.kind !== 'relation' || node.op !== 'Equal') return null;
  const links = relationLinks(node.op, node.args);
  if (links.length === 0 || links.some((link) => link.op !== 'Equal')) return null;
  const left = links[0].left;
  if (!isLabel(left)) return null;
  return { variable: JSON.stringify(left), value: links[links.length - 1].right };
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

/** Items in increasing numeric order when all are real constants (a SymPy FiniteSet's order); else as given. */
function sortedItems(items: MathNode[]): MathNode[] {
  const values: number[] = [];
  for (const item of items) {
    if (item.kind !== 'expr' || freeSymbols(item.json).size > 0) return items;
    try {
      const [re, im] = numericValue(item.json);
      if (im !== 0 || Number.isNaN(re)) return items;
      values.push(re);
    } catch {
      return items;
    }
  }
  return items
    .map((item, i) => ({ item, value: values[i] }))
    .sort((a, b) => a.value - b.value)
    .map((x) => x.item);
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
