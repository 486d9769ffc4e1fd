// Matrix arithmetic written out as an answer (`A + B`, `2A`, `AB`, `A - B` with the matrices spelled out):
// evaluated entry by entry into a matrix of MathJSON entries, so that it compares with a matrix gold, as
// Math-Verify (SymPy) does. Entries stay unevaluated expressions; compare.ts compares them as scalars.
import type { Json } from './evaluate.ts';

type Rows = Json[][];

const isMatrix = (json: Json): boolean => Array.isArray(json) && json[0] === 'Matrix';

export function containsMatrix(json: Json): boolean {
  return Array.isArray(json) && (isMatrix(json) || json.some((part, i) => i > 0 && containsMatrix(part)));
}

function rowsOf(matrix: Json[]): Rows | null {
  const body = matrix[1];
  if (!Array.isArray(body) || body[0] !== 'List') return null;
  const rows = body.slice(1).map((row) => (Array.isArray(row) && row[0] === 'List' ? row.slice(1) : [row]));
  return rows.length > 0 && rows.every((row) => row.length === rows[0].length) ? rows : null;
}

const sameShape = (a: Rows, b: Rows) => a.length === b.length && a[0].length === b[0].length;
const map = (a: Rows, f: (entry: Json, i: number, j: number) => Json): Rows =>
  a.map((row, i) => row.map((entry, j) => f(entry, i, j)));

function product(a: Rows, b: Rows): Rows | null {
  if (a[0].length !== b.length) return null;
  return a.map((row) =>
    b[0].map((_, j) => ['Add', ...row.map((entry, k): Json => ['Multiply', entry, b[k][j]])]),
  );
}

/** A matrix expression's entries, or null when it is not one (a scalar, or shapes that do not fit). */
export function evaluateMatrix(json: Json): Rows | null {
  if (!Array.isArray(json)) return null;
  if (isMatrix(json)) return rowsOf(json as Json[]);
  const [head, ...args] = json;
  if (head === 'Delimiter' && args.length >= 1) return evaluateMatrix(args[0]);
  if (head === 'Negate' && args.length === 1) {
    const a = evaluateMatrix(args[0]);
    return a && map(a, (entry) => ['Negate', entry]);
  }
  if ((head === 'Add' || head === 'Subtract') && args.length >= 2) {
    const parts = args.map(evaluateMatrix);
    const first = parts[0];
    if (!first || parts.some((part) => !part || !sameShape(part, first))) return null;
    return map(first, (_, i, j) => [head, ...parts.map((part) => part![i][j])]);
  }
  if (head === 'Multiply' || head === 'InvisibleOperator') {
    // matrices multiply in order; scalar factors scale the result
    let result: Rows | null = null;
    const scalars: Json[] = [];
    for (const arg of args) {
      if (!containsMatrix(arg)) {
        scalars.push(arg);
        continue;
      }
      const m = evaluateMatrix(arg);
      if (!m) return null;
      result = result ? product(result, m) : m;
      if (!result) return null;
    }
    if (!result || scalars.length === 0) return result;
    const factor: Json = scalars.length === 1 ? scalars[0] : ['Multiply', ...scalars];
    return map(result, (entry) => ['Multiply', factor, entry]);
  }
  return null;
}
