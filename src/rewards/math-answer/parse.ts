// Normalised LaTeX → a small answer tree (MathNode): scalars stay compute-engine MathJSON, while lists,
// sets, tuples, intervals, unions, matrices, relations and text become explicit nodes for compare.ts.
// We parse with compute-engine 0.140.0 *non-canonical* (about 0.2 ms against ~2 ms canonical) and keep its
// distinctions that a canonical parse loses: `1, 2` (a bare list, unordered like Math-Verify's FiniteSet)
// versus `(1, 2)` (a tuple, or an open interval). `a \pm b` expands to the set {a+b, a-b} (Math-Verify).
import { ComputeEngine } from '@cortex-js/compute-engine';
import type { Json } from './evaluate.ts';
import type { Normalized } from './normalize.ts';

export type RelationOp = 'Equal' | 'NotEqual' | 'Less' | 'LessEqual' | 'Greater' | 'GreaterEqual';

export type MathNode =
  | { kind: 'expr'; json: Json; percent: boolean }
  | { kind: 'relation'; op: RelationOp; args: Json[] }
  | { kind: 'or'; items: MathNode[] }
  | { kind: 'text'; value: string }
  /** ordered: '()' tuple, '[]' list (a closed interval when it has two items), ':' ratio; 'bare' lists are unordered */
  | { kind: 'tuple'; delimiter: '()' | '[]' | ':' | 'bare'; items: MathNode[] }
  | { kind: 'set'; items: MathNode[] }
  | { kind: 'interval'; lower: Json; upper: Json; lowerOpen: boolean; upperOpen: boolean }
  | { kind: 'union'; items: MathNode[] }
  | { kind: 'matrix'; rows: MathNode[][] };

export type Parsed = { ok: true; node: MathNode } | { ok: false; error: string };

const RELATIONS = new Set<string>(['Equal', 'NotEqual', 'Less', 'LessEqual', 'Greater', 'GreaterEqual']);

let engine: ComputeEngine | null = null;
function ce(): ComputeEngine {
  engine ??= new ComputeEngine();
  return engine;
}

function containsError(json: Json): boolean {
  if (!Array.isArray(json)) return false;
  if (json[0] === 'Error') return true;
  return json.some((part) => containsError(part));
}

function parseLatex(latex: string): Json {
  return ce().parse(latex, { canonical: false } as never).json as Json;
}

export function parseNormalized(normalized: Normalized): Parsed {
  const { latex, percent } = normalized;
  if (latex === '') return { ok: false, error: 'empty answer' };
  if (normalized.textual) return { ok: true, node: { kind: 'text', value: textKey(latex) } };
  if (/\\(?:pm|mp)(?![a-zA-Z])/.test(latex)) {
    const plus = latex.replace(/\\pm(?![a-zA-Z])/g, '+').replace(/\\mp(?![a-zA-Z])/g, '-');
    const minus = latex.replace(/\\pm(?![a-zA-Z])/g, '-').replace(/\\mp(?![a-zA-Z])/g, '+');
    const items: MathNode[] = [];
    for (const variant of [plus, minus]) {
      const json = parseLatex(variant.replace(/([=(,{]\s*)\+/g, '$1').replace(/^\s*\+/, ''));
      if (containsError(json)) return { ok: false, error: `does not parse: ${latex}` };
      items.push(toNode(json, percent));
    }
    return { ok: true, node: { kind: 'set', items } };
  }
  const json = parseLatex(latex);
  if (containsError(json)) return { ok: false, error: `does not parse: ${latex}` };
  return { ok: true, node: toNode(json, percent) };
}

/** Case- and space-insensitive key for text answers. */
export function textKey(text: string): string {
  return text
    .toLowerCase()
    .replace(/\\[a-z]+/g, '')
    .replace(/[^a-z0-9]/g, '');
}

function unquote(symbol: string): string {
  return symbol.startsWith("'") ? symbol.slice(1, -1) : symbol;
}

function isOpen(json: Json): boolean {
  return Array.isArray(json) && json[0] === 'Open';
}

function unOpen(json: Json): Json {
  return isOpen(json) ? (json as Json[])[1] : json;
}

export interface RelationLink {
  op: RelationOp;
  left: Json;
  right: Json;
}

const isRelationJson = (json: Json): json is Json[] =>
  Array.isArray(json) && typeof json[0] === 'string' && RELATIONS.has(json[0]);

/**
 * Binary links of a relation chain: `-2 \le x \le 7` → [-2 ≤ x, x ≤ 7]. compute-engine nests mixed chains
 * (a < b \le c parses as LessEqual(Less(a, b), c); a = b = c as Equal(a, Equal(b, c))); both are flattened.
 */
export function relationLinks(op: RelationOp, args: readonly Json[]): RelationLink[] {
  const links: RelationLink[] = [];
  let previous: Json | null = null;
  for (const [i, arg] of args.entries()) {
    if (isRelationJson(arg) && (i === 0 || i === args.length - 1)) {
      const inner = relationLinks(arg[0] as RelationOp, arg.slice(1));
      if (previous !== null) links.push({ op, left: previous, right: inner[0].left });
      links.push(...inner);
      previous = inner[inner.length - 1].right;
    } else {
      if (previous !== null) links.push({ op, left: previous, right: arg });
      previous = arg;
    }
  }
  return links;
}

/** The answer tree of a MathJSON expression. */
export function jsonToNode(json: Json): MathNode {
  return toNode(json, false);
}

function toNode(json: Json, percent: boolean): MathNode {
  if (typeof json === 'string') {
    if (json.startsWith("'")) return { kind: 'text', value: textKey(unquote(json)) };
    if (json === 'EmptySet') return { kind: 'set', items: [] };
    return { kind: 'expr', json, percent };
  }
  if (!Array.isArray(json)) return { kind: 'expr', json, percent };
  const [head, ...args] = json;
  const children = (items: Json[]) => items.map((item) => toNode(item, percent));
  switch (head) {
    case 'Delimiter': {
      const [body, delimiters] = args;
      const items = Array.isArray(body) && body[0] === 'Sequence' ? body.slice(1) : [body];
      const style = typeof delimiters === 'string' ? unquote(delimiters) : '';
      if (style === ',' || style === '') {
        return items.length === 1
          ? toNode(items[0], percent)
          : { kind: 'tuple', delimiter: 'bare', items: children(items) };
      }
      if (style.startsWith('[')) return { kind: 'tuple', delimiter: '[]', items: children(items) };
      if (style.startsWith('{') || style.startsWith('\\{')) return { kind: 'set', items: children(items) };
      if (items.length === 1) return toNode(items[0], percent);
      return { kind: 'tuple', delimiter: '()', items: children(items) };
    }
    case 'Sequence':
      return args.length === 1
        ? toNode(args[0], percent)
        : { kind: 'tuple', delimiter: 'bare', items: children(args) };
    case 'Tuple':
      return { kind: 'tuple', delimiter: '()', items: children(args) };
    case 'List':
      return { kind: 'tuple', delimiter: '[]', items: children(args) };
    case 'Colon':
      return { kind: 'tuple', delimiter: ':', items: children(args) };
    case 'Set':
      return { kind: 'set', items: children(args) };
    case 'Interval':
      return {
        kind: 'interval',
        lower: unOpen(args[0]),
        upper: unOpen(args[1]),
        lowerOpen: isOpen(args[0]),
        upperOpen: isOpen(args[1]),
      };
    case 'Union':
      return { kind: 'union', items: children(args) };
    case 'Matrix': {
      const rows = Array.isArray(args[0]) && args[0][0] === 'List' ? args[0].slice(1) : [];
      return {
        kind: 'matrix',
        rows: rows.map((row) =>
          Array.isArray(row) && row[0] === 'List' ? children(row.slice(1)) : [toNode(row, percent)],
        ),
      };
    }
    case 'Element':
      // x \in S: the answer is S.
      return args.length === 2 ? toNode(args[1], percent) : { kind: 'expr', json, percent };
    case 'Or':
      return { kind: 'or', items: children(args) };
    default:
      if (typeof head === 'string' && RELATIONS.has(head))
        return { kind: 'relation', op: head as RelationOp, args };
      return { kind: 'expr', json, percent };
  }
}

/** Number of top-level answers a node lists (a bare list or a set counts its items; anything else is one). */
export function answerCount(node: MathNode): number {
  if (node.kind === 'set' || (node.kind === 'tuple' && node.delimiter === 'bare')) return node.items.length;
  if (node.kind === 'or') return node.items.length;
  return 1;
}
