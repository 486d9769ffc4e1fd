// Where a text gives away a problem's final answer, in any of the forms a hint writer (or a tutor trained
// against the guard) can write it: the leakage guard's matcher (../leakage.ts cuts the text before it).
// Matching is on the normalised text (normalise.ts: case, Unicode and worded operators, number words), by
// the answer's kind:
//
// A numeric answer (optional sign, digits):
// - rule `digits`: a run of digits, single separators between digits included (`,` `_` `'` space, thin
//   space: "8,25", "8 25", "1 2 9" from "one two nine"), whose digits END with the answer's ("825" in
//   "A:825", in "1825", in "eight hundred twenty-five"). Sign ignored. Not a leak: the same number as one
//   of the prompt's numbers where it stands as an operand (not after '=', ':', "is", "gives", …): a hint
//   that restates "4-2" of the problem does not give away an answer 2; one that writes "9-7=2" does.
// - rule `scattered`: the answer's digits (two or more) as consecutive one-digit numbers in order or in
//   reverse, with words or commas between them ("the digits are 1, then 2, then 9"; "units 9, tens 2,
//   hundreds 1"); digits joined by operators only ("1+2+9") are arithmetic, not this rule.
// - rule `value`: an arithmetic expression or a non-integer number not in the prompt whose value equals
//   the answer exactly (arithmetic.ts: "100+29", "258/2", "1.29e2", "129.0", "\frac{258}{2}").
// Any other answer (a word, a list, countdown's expression):
// - rule `text`: the answer's characters in order with separators allowed between them (whitespace, `_`,
//   `'`, `·`; for an answer without arithmetic also `-` `.` `,` `|` `/`), not inside a longer word or
//   number ("XREQK", "x-r-e-q-k", "(25 plus 3) times 4"; "fails" does not give away "FAIL").
// - rule `value`, for an answer that is an arithmetic expression: another expression of the same value,
//   not in the prompt ("4*(3+25)" for "(25+3)*4"; countdown's last derivation step "28*4" reaches the
//   target, and with it the whole solution).
import { sameValue } from './arithmetic.ts';
import { type Normalised, normalise } from './normalise.ts';

export type LeakRule = 'digits' | 'scattered' | 'value' | 'text';

export interface Leak {
  /** Index in the ORIGINAL text where the answer starts. */
  position: number;
  rule: LeakRule;
}

export interface LeakContext {
  /** The problem's prompt: its numbers and expressions, restated, are not leaks. */
  prompt?: string;
  /** The answer is a label (Task.labelAnswers): matched as a whole word only. */
  label?: boolean;
}

const digitRun = /\d(?:[,_' \u2009]?\d)*/g;
/** Maximal arithmetic spans on one line: digits, operators, parentheses, decimal points, exponents, spaces. */
const arithmeticSpan = /[\d(][\d \t.()+\-*/^e]*[\d)]|\d/g;
const fraction = /\\frac\{[^{}]*\}\{[^{}]*\}/g;
const resultCue = /(?:[=:]|\b(?:is|are|gives|give|get|gets|makes|make|answer|result|total|sum|be))\s*$/;

const digitsOf = (run: string) => run.replace(/\D/g, '');

/** The first leak of `answer` in `text`, or null. */
export function findLeak(text: string, answer: string, context: LeakContext = {}): Leak | null {
  const trimmed = answer.trim();
  if (trimmed === '') return null;
  const hint = normalise(text);
  const prompt = normalise(context.prompt ?? '').text;
  const numbers = promptNumbers(prompt);
  const found: Leak[] = [];
  if (/^[-+]?\d+$/.test(trimmed)) {
    const digits = trimmed.replace(/^[-+]/, '');
    const leak = digitLeak(hint, digits, numbers) ?? scatteredLeak(hint, digits);
    if (leak) found.push(leak);
    const value = valueLeak(hint, trimmed, prompt, numbers, true);
    if (value) found.push(value);
  } else {
    const literal = textLeak(hint, normalise(trimmed).text, context.label ?? false);
    if (literal) found.push(literal);
    if (isArithmetic(trimmed)) {
      const value = valueLeak(hint, trimmed, prompt, numbers, false);
      if (value) found.push(value);
    }
  }
  if (found.length === 0) return null;
  return found.reduce((first, leak) => (leak.position < first.position ? leak : first));
}

function promptNumbers(prompt: string): Set<string> {
  return new Set([...prompt.matchAll(digitRun)].map((match) => digitsOf(match[0])));
}

function digitLeak(hint: Normalised, digits: string, numbers: ReadonlySet<string>): Leak | null {
  for (const match of hint.text.matchAll(digitRun)) {
    const run = digitsOf(match[0]);
    if (!run.endsWith(digits)) continue;
    const operand = numbers.has(run) && !resultCue.test(hint.text.slice(0, match.index));
    if (operand) continue;
    return { position: hint.origin[match.index], rule: 'digits' };
  }
  return null;
}

/**
 * The answer's digits split over consecutive numbers with words or commas between them: "12 and then 9",
 * "1, then 2, then 9"; one-digit pieces also in reverse ("units 9, tens 2, hundreds 1") or joined by
 * '-', '.', '/', '|' when there are three or more ("1-2-9"). Pieces joined by arithmetic are not this.
 */
function scatteredLeak(hint: Normalised, digits: string): Leak | null {
  if (digits.length < 2) return null;
  const runs = [...hint.text.matchAll(digitRun)].map((match) => ({
    digits: digitsOf(match[0]),
    start: match.index,
    end: match.index + match[0].length,
  }));
  const reversed = [...digits].reverse().join('');
  for (let i = 0; i < runs.length; i++) {
    let sequence = runs[i].digits;
    for (let j = i + 1; j < runs.length && sequence.length < digits.length; j++) {
      sequence += runs[j].digits;
      const window = runs.slice(i, j + 1);
      const gaps = window.slice(1).map((run, k) => hint.text.slice(window[k].end, run.start));
      const singles = window.every((run) => run.digits.length === 1);
      const worded = gaps.every((gap) => /[a-z,;]/.test(gap));
      const separated = singles && gaps.every((gap) => /^\s*[-./|]\s*$/.test(gap));
      if (!worded && !separated) break;
      const spelled = worded || (separated && window.length >= 3);
      if (spelled && (sequence === digits || (singles && sequence === reversed))) {
        return { position: hint.origin[runs[i].start], rule: 'scattered' };
      }
    }
  }
  return null;
}

const isArithmetic = (text: string) =>
  /^[\d\s.()+\-*/^]+$/.test(text) && /\d/.test(text) && /[+\-*/^]/.test(text);
const squash = (text: string) => text.replace(/\s+/g, '');

/**
 * An expression span of the answer's value. For a numeric answer, a span whose numbers all come from the
 * prompt (or are 0 and 1, carries) restates the question ("2+3+0" of "2+3", "68+61" of "61+68"), which
 * has the answer's value by definition; only a span with another number gives it away ("100+29").
 * For an expression answer (countdown) any expression of its value reaches the target: a solution.
 */
function valueLeak(
  hint: Normalised,
  answer: string,
  prompt: string,
  numbers: ReadonlySet<string>,
  numeric: boolean,
): Leak | null {
  const echo = squash(prompt);
  const known = new Set([...numbers, '0', '1']);
  const restates = (span: string) =>
    numeric && [...span.matchAll(/\d+(?:\.\d+)?/g)].every((number) => known.has(number[0]));
  const spans = [...hint.text.matchAll(arithmeticSpan), ...hint.text.matchAll(fraction)]
    .map((match) => ({
      text: match[0].trim(),
      start: match.index + (match[0].length - match[0].trimStart().length),
    }))
    .filter((span) => !/^\d+$/.test(span.text)) // plain integers: the digits rule
    .filter((span) => !/\d[ \t]+\d/.test(span.text)) // numbers side by side, not one expression
    .filter((span) => /[\d]/.test(span.text) && !echo.includes(squash(span.text)))
    .sort((a, b) => a.start - b.start);
  for (const span of spans) {
    if (squash(span.text) === squash(answer) || restates(span.text)) continue; // the text rule's; the question
    if (sameValue(answer, span.text)) return { position: hint.origin[span.start], rule: 'value' };
  }
  return null;
}

function textLeak(hint: Normalised, answer: string, label: boolean): Leak | null {
  const characters = [...answer.replace(/\s+/g, '')];
  if (characters.length === 0) return null;
  const separators = isArithmetic(answer) ? "[\\s_'·]*" : "[\\s_'·\\-.,|/]*";
  const escaped = (character: string) => character.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const boundary = (character: string, side: 'head' | 'tail') => {
    const kind = /[a-z]/.test(character) ? (label ? '[a-z]' : null) : /\d/.test(character) ? '\\d' : null;
    if (kind === null) return '';
    return side === 'head' ? `(?<!${kind})` : `(?!${kind})`;
  };
  const pattern = new RegExp(
    `${boundary(characters[0], 'head')}${characters.map(escaped).join(separators)}${boundary(characters[characters.length - 1], 'tail')}`,
  );
  const match = pattern.exec(hint.text);
  return match ? { position: hint.origin[match.index], rule: 'text' } : null;
}
