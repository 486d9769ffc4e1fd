// Structural keys of MathJSON expressions, for the echo rule (echo.ts): two expressions written the same way
// up to notation get the same key. Operands of + and × are sorted and flattened, `\cdot`/`\times`/
// juxtaposition are one product, parentheses around a single item vanish, a − b is a + (−b), x² is x^2,
// and identity operands (`+ 0`, `\cdot 1`) are dropped so that `17\times 23\times 1` still reads as
// `17\times 23`. Values are not computed: `2+3` and `5` have different keys (that is the point).
import type { Json } from './evaluate.ts';

const COMMUTATIVE = new Set(['Add', 'Multiply']);

function normalizeHead(json: Json[]): { head: string; args: Json[] } {
  const [rawHead, ...args] = json;
  const head = typeof rawHead === 'string' ? rawHead : JSON.stringify(rawHead);
  switch (head) {
    case 'InvisibleOperator':
      return { head: 'Multiply', args };
    case 'Subtract':
      return args.length === 2 ? { head: 'Add', args: [args[0], ['Negate', args[1]]] } : { head, args };
    case 'Rational':
      return { head: 'Divide', args };
    case 'Square':
      return { head: 'Power', args: [args[0], 2] };
    case 'Choose':
      return { head: 'Binomial', args };
    default:
      return { head, args };
  }
}

/** The structural key of an expression. */
export function canonicalKey(json: Json): string {
  if (typeof json === 'number') return Object.is(json, -0) ? '0' : String(json);
  if (typeof json === 'string') return json;
  if (!Array.isArray(json)) return json.num.replace(/^\+/, '');
  if (json.length === 0) return '()';
  if (json[0] === 'Delimiter' && json.length >= 2) {
    const body = json[1];
    if (!(Array.isArray(body) && body[0] === 'Sequence' && body.length > 2)) return canonicalKey(body);
  }
  const { head, args } = normalizeHead(json);
  if (head === 'Negate' && args.length === 1) {
    const inner = canonicalKey(args[0]);
    if (inner.startsWith('Negate(')) return inner.slice(7, -1);
    if (/^\d/.test(inner)) return `-${inner}`;
    if (inner.startsWith('-') && /^-\d/.test(inner)) return inner.slice(1);
    return `Negate(${inner})`;
  }
  if (COMMUTATIVE.has(head)) {
    const identity = head === 'Add' ? '0' : '1';
    const keys: string[] = [];
    for (const arg of args) {
      const key = canonicalKey(arg);
      if (key.startsWith(`${head}(`)) keys.push(...splitArgs(key.slice(head.length + 1, -1)));
      else if (key !== identity) keys.push(key);
    }
    if (keys.length === 0) return identity;
    if (keys.length === 1) return keys[0];
    return `${head}(${keys.sort().join(',')})`;
  }
  return `${head}(${args.map(canonicalKey).join(',')})`;
}

/** Splits 'a,F(b,c),d' at top-level commas. */
function splitArgs(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === '(') depth++;
    else if (ch === ')') depth--;
    else if (ch === ',' && depth === 0) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(text.slice(start));
  return parts;
}

/** Adds the keys of the expression and of all its sub-expressions to `into`. */
export function subtreeKeys(json: Json, into: Set<string>): Set<string> {
  into.add(canonicalKey(json));
  if (Array.isArray(json)) for (let i = 1; i < json.length; i++) subtreeKeys(json[i], into);
  return into;
}
