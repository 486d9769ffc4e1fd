// The echo rule (anti-hacking, not in Math-Verify): an answer that restates an expression of the problem
// with an operation still to evaluate scores 0 with reason 'echo'. `\boxed{\binom{10}{3}}` for "Compute
// C(10,3)", `\boxed{17\times 23}`, `\boxed{\int_0^1 x^2\,dx}`, `\boxed{2+3}` for "What is 2+3?",
// `(x+1)^2` for "Expand $(x+1)^2$" are all equal to the gold, so Math-Verify (and our comparison) would give
// them 1, and an RL policy learns to copy the prompt.
//
// An answer echoes when all three hold:
//   1. it is not in final form: a number literal, a fraction in lowest terms, `2\sqrt{2}`, `\frac{\pi}{4}`,
//      `\ln 2`, a mixed number and a single symbol are final; arithmetic whose value is rational (`2+3`,
//      `\frac{6}{8}`, `2^{10}`, `\sqrt{9}`), `\sqrt{8}` (a square factor left), binomials, factorials,
//      integrals, sums, products, limits, derivatives, floor/ceil/min/max/gcd/lcm/mod, trigonometric functions
//      of constants, logarithms with an integer value and arithmetic on written-out matrices are not; an expression with variables is final only
//      when it is a single symbol (see 3);
//   2. its structural key (canonical.ts: operand order, `\cdot`/`\times`, parentheses, `\dfrac`, `+0`/`\cdot 1`
//      ignored) is the key of an expression or sub-expression of the problem text: its LaTeX environments,
//      plus runs of mathematics in plain text ("What is 2+3?", "17 * 23"; "C(10,3)", "10 choose 3" and
//      "{}_{10}C_3" read as \binom{10}{3});
//   3. the gold itself is not in that form: not structurally the same expression and, for a constant gold,
//      not itself unevaluated (a gold `2^{10}` means the dataset accepts unevaluated forms).
// An unevaluated answer that is *not* in the problem (`\boxed{3+4}` for gold 7 when the problem never says
// 3+4, `\boxed{5!}` for 120) still scores 1, as in Math-Verify: the model did the modelling itself, and
// many final forms are "unevaluated" (`2^{10}`, `\binom{5}{2}`, `1.2\times10^3`).
// Relations copied verbatim from the problem (`-2 \le x+1 \le 8` for "Solve $-2 \le x+1 \le 8$") also echo
// when the gold is not a relation. A problem's segments are parsed once, and only when an answer's numbers
// all occur in them.
import { canonicalKey, subtreeKeys } from './canonical.ts';
import { isLabel } from './compare.ts';
import { exactValue, type Json } from './evaluate.ts';
import { normalizeAnswer } from './normalize.ts';
import { freeSymbols, numericValue } from './numeric-value.ts';
import { type MathNode, parseNormalized } from './parse.ts';

/** Operators whose presence means "still to evaluate", whatever their arguments. */
const ALWAYS_EVALUATE = new Set([
  'Integrate',
  'Sum',
  'Product',
  'Limit',
  'D',
  'Derivative',
  'Binomial',
  'Choose',
  'Factorial',
  'Factorial2',
  'GCD',
  'LCM',
  'Mod',
  'Floor',
  'Ceil',
  'Max',
  'Min',
]);
const TRIGONOMETRIC = new Set(['Sin', 'Cos', 'Tan', 'Sec', 'Csc', 'Cot', 'Sinh', 'Cosh', 'Tanh']);
const LOGARITHMS = new Set(['Log', 'Ln', 'Lb', 'Lg']);
const ARITHMETIC = new Set([
  'Add',
  'Subtract',
  'Multiply',
  'InvisibleOperator',
  'Divide',
  'Rational',
  'Power',
  'Square',
  'Sqrt',
  'Root',
  'Negate',
  'Delimiter',
]);

const isInteger = (json: Json): json is number => typeof json === 'number' && Number.isInteger(json);
const unsigned = (json: Json): Json =>
  Array.isArray(json) && (json[0] === 'Negate' || json[0] === 'Delimiter') && json.length === 2
    ? unsigned(json[1])
    : json;

/** A literal rational: `5`, `-2.5`, `\frac{3}{4}` in lowest terms (signs anywhere), a mixed number `7\frac34`. */
function isRationalLiteral(json: Json): boolean {
  json = unsigned(json);
  if (typeof json === 'number' || (!Array.isArray(json) && typeof json === 'object')) return true;
  if (!Array.isArray(json)) return false;
  const [head, a, b] = json;
  if ((head === 'Divide' || head === 'Rational') && json.length === 3) {
    const n = unsigned(a);
    const d = unsigned(b);
    if (!isInteger(n) || !isInteger(d) || d === 0 || d === 1) return false;
    let [x, y] = [Math.abs(n), Math.abs(d)];
    while (y) [x, y] = [y, x % y];
    return x === 1;
  }
  return (
    head === 'InvisibleOperator' &&
    json.length === 3 &&
    isInteger(a) &&
    Array.isArray(b) &&
    isRationalLiteral(b)
  );
}

/** A square (k-th power) factor left under a root of an integer: `\sqrt{8}`, `\sqrt[3]{16}`. */
function reducibleRoot(radicand: Json, degree: number): boolean {
  if (!isInteger(radicand) || radicand < 4 || radicand > 1e12) return false;
  for (let p = 2; p ** degree <= radicand && p < 10_000; p++) if (radicand % p ** degree === 0) return true;
  return false;
}

/** A written-out matrix, possibly in parentheses (checked shallowly: this runs at every node). */
const isMatrixOperand = (json: Json): boolean =>
  Array.isArray(json) && (json[0] === 'Matrix' || (json[0] === 'Delimiter' && isMatrixOperand(json[1])));

/** Does this expression still contain an operation to evaluate (rule 1 above)? */
export function needsEvaluation(json: Json): boolean {
  if (!Array.isArray(json)) return false;
  const head = json[0];
  if (typeof head !== 'string') return false;
  if (ALWAYS_EVALUATE.has(head)) return true;
  // arithmetic on written-out matrices (`A + B`, `2A`, `AB`)
  if (ARITHMETIC.has(head) && head !== 'Delimiter' && json.some((arg, i) => i > 0 && isMatrixOperand(arg)))
    return true;
  const constant = freeSymbols(json).size === 0;
  if (constant && TRIGONOMETRIC.has(head)) return true;
  if (constant && LOGARITHMS.has(head)) {
    try {
      const [re, im] = numericValue(json);
      return im === 0 && Number.isFinite(re) && Math.abs(re - Math.round(re)) < 1e-12;
    } catch {
      return false;
    }
  }
  if (constant && ARITHMETIC.has(head) && !isRationalLiteral(json)) {
    if (head === 'Sqrt' && reducibleRoot(json[1], 2)) return true;
    if (head === 'Root' && isInteger(json[2]) && reducibleRoot(json[1], json[2])) return true;
    try {
      if (exactValue(json) !== null) return true; // rational value written as arithmetic: 2+3, 2^{10}, \frac68
    } catch {
      return true; // too large to evaluate: certainly not written out
    }
  }
  for (let i = 1; i < json.length; i++) if (needsEvaluation(json[i])) return true;
  return false;
}

/** Rule 1 for an answer: unevaluated, or (with variables) anything but a single symbol. */
function unevaluatedAnswer(json: Json): boolean {
  if (needsEvaluation(json)) return true;
  return Array.isArray(json) && freeSymbols(json).size > 0;
}

// ---------- the problem text ----------

/** LaTeX environments, and runs of mathematics in the plain text around them. */
export function questionSegments(question: string): string[] {
  const text = question
    .replace(/\bC\s*\(\s*(\d+)\s*,\s*(\d+)\s*\)/g, '\\binom{$1}{$2}')
    .replace(/\b(\d+)\s+choose\s+(\d+)\b/gi, '\\binom{$1}{$2}')
    .replace(/\{\}_\{?(\d+)\}?\s*C_\{?(\d+)\}?/g, '\\binom{$1}{$2}')
    .replace(/\b(\d+)C(\d+)\b/g, '\\binom{$1}{$2}');
  const segments: string[] = [];
  const env = /\$\$([\s\S]+?)\$\$|\\\[([\s\S]+?)\\\]|\\\(([\s\S]+?)\\\)|\$([^$]+?)\$/g;
  const prose = text.replace(env, (_, a, b, c, d) => {
    segments.push(a ?? b ?? c ?? d);
    return ' ; ';
  });
  // Plain-text runs: digits, operators, brackets and LaTeX commands (no letters, so prose is left out).
  const run = /(?:\\[a-zA-Z]+|[\d+\-*/×÷·^=<>()[\]{}!.,_|√πx]|\s)+/g;
  for (const match of prose.matchAll(run)) {
    const candidate = match[0].trim().replace(/[.,;:?!]+$/, (tail) => (tail.startsWith('!') ? '!' : ''));
    if (/\d|\\/.test(candidate) && candidate.length >= 2) segments.push(candidate);
  }
  return segments;
}

interface QuestionEntry {
  /** The problem's mathematical segments; each is parsed (once) only when an answer might come from it. */
  segments: string[];
  /** The normalised text with spaces and `$` removed, for the verbatim relation rule (computed on demand). */
  compact?: string;
}

const CACHE_LIMIT = 2048;
const questionCache = new Map<string, QuestionEntry>();
/** Structural keys of every expression and sub-expression of a segment. */
const segmentCache = new Map<string, Set<string>>();

export const compact = (text: string) => text.replace(/[\s$]|\\[,;:! ]/g, '');

function questionEntry(question: string): QuestionEntry {
  let entry = questionCache.get(question);
  if (!entry) {
    entry = { segments: questionSegments(question) };
    if (questionCache.size >= CACHE_LIMIT) questionCache.clear();
    questionCache.set(question, entry);
  }
  return entry;
}

function segmentKeys(segment: string): Set<string> {
  let keys = segmentCache.get(segment);
  if (!keys) {
    keys = new Set<string>();
    const parsed = parseNormalized(normalizeAnswer(segment));
    if (parsed.ok) collectKeys(parsed.node, keys);
    if (segmentCache.size >= CACHE_LIMIT) segmentCache.clear();
    segmentCache.set(segment, keys);
  }
  return keys;
}

/** Is `key` an expression of the problem? Only segments holding every number of the answer are parsed. */
function inQuestion(question: string, key: string, numbers: readonly string[]): boolean {
  for (const segment of questionEntry(question).segments) {
    if (numbers.every((digits) => segment.includes(digits)) && segmentKeys(segment).has(key)) return true;
  }
  return false;
}

function collectKeys(node: MathNode, keys: Set<string>): void {
  if (node.kind === 'expr') subtreeKeys(node.json, keys);
  else if (node.kind === 'relation') for (const arg of node.args) subtreeKeys(arg, keys);
  else if (node.kind === 'tuple' || node.kind === 'set' || node.kind === 'or' || node.kind === 'union')
    for (const item of node.items) collectKeys(item, keys);
}

// ---------- the rule ----------

const isEquationLike = (node: MathNode) => node.kind === 'relation' || node.kind === 'or';

/** `x = 4`, `AB = 4`: an assignment (questions often state them; its right side is the answer). */
function assignedValue(node: MathNode): Json | null {
  if (node.kind !== 'relation' || node.op !== 'Equal' || node.args.length !== 2) return null;
  return isLabel(node.args[0]) ? node.args[1] : null;
}

/**
 * Does the prediction echo the problem? `predLatex` is its normalised LaTeX (for the verbatim relation rule).
 * Cheap for the common case (a number or a final form returns before the problem text is looked at).
 */
export function echoesQuestion(pred: MathNode, predLatex: string, gold: MathNode, question: string): boolean {
  const value = pred.kind === 'expr' ? pred.json : assignedValue(pred);
  if (value !== null) {
    // Cheapest tests first: each number of the answer must occur in the problem text.
    const numbers = predLatex.match(/\d+/g) ?? [];
    if (!numbers.every((digits) => question.includes(digits))) return false;
    if (!unevaluatedAnswer(value)) return false;
    const key = canonicalKey(value);
    if (gold.kind === 'expr') {
      if (freeSymbols(gold.json).size === 0 && needsEvaluation(gold.json)) return false;
      if (canonicalKey(gold.json) === key) return false;
    }
    return inQuestion(question, key, numbers);
  }
  if (isEquationLike(pred) && !isEquationLike(gold)) {
    const answer = compact(predLatex);
    if (answer.length < 3) return false;
    const entry = questionEntry(question);
    entry.compact ??= compact(normalizeAnswer(question).latex);
    return entry.compact.includes(answer);
  }
  return false;
}
