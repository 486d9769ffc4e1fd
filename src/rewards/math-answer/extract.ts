// Answer extraction from a model's completion, by priority (Math-Verify v0.8.0's LaTeX/Expr/String configs,
// with boxed at the highest priority as its README recommends for rewards):
//   1. the last \boxed{…} / \fbox{…} (brace-matched; boxes separated only by ',', ';', '.', 'and', 'or',
//      '$', \( \) \[ \], a short \text{… and}, or one word then 'and' (`\boxed{1} papers and \boxed{2}`) are
//      joined with ', ' so that a multi-answer box list reads as one list);
//   2. "final answer is …" (Minerva's "Final Answer: The final answer is X. I hope it is correct."), and
//      "Final Answer: The largest $n$ is 34." → 34 (Math-Verify's `final answer.{0,100}? is X`);
//   3. "answer: …" / "the answer is …" (last occurrence);
//   4. fallbacks: the last LaTeX environment ($…$, $$…$$, \[…\], \(…\)); the whole text when it is a bare
//      answer (one short line, all mathematics or all words: '\frac{1}{2}', 'x = 3', 'Evelyn'), as
//      Math-Verify's fallback_mode="first_match" does with the raw string; then the last number (thousands
//      groups, a decimal comma `2,75`, never a digit inside a word: 'AZYUK2A' has no number).
// With `boxedOnly`, only (1) counts. Multiple-choice letters (A–E) are extracted by extractLetters when the
// gold is a letter (boxed, after "answer", a bare `$E$`, or the last `(C)`).
// Deviations from Math-Verify: it tries every match of every priority right-to-left until one parses; we
// offer one candidate per priority (its last match) and verify.ts tries them in order until one parses,
// except that a box is final (a boxed, unparseable answer is the model's fault). Phrases after "answer"
// with more than two prose words are not candidates.

export type AnswerSource = 'boxed' | 'final' | 'answer' | 'latex' | 'whole' | 'number';

export interface Extracted {
  /** The raw answer text (may be '' for an empty box). */
  answer: string;
  source: AnswerSource;
}

const BOX_COMMANDS = /\\(?:boxed|fbox)\b/g;

/** Contents of a brace group starting at text[open] === '{'; unbalanced → the rest of the text. */
function braceGroup(text: string, open: number): { content: string; end: number } {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    const ch = text[i];
    if (ch === '\\') {
      i++; // skip escaped characters such as \{ and \}
      continue;
    }
    if (ch === '{') depth++;
    else if (ch === '}') {
      depth--;
      if (depth === 0) return { content: text.slice(open + 1, i), end: i + 1 };
    }
  }
  return { content: text.slice(open + 1), end: text.length };
}

interface Box {
  content: string;
  start: number;
  end: number;
}

export function findBoxes(text: string): Box[] {
  const boxes: Box[] = [];
  for (const match of text.matchAll(BOX_COMMANDS)) {
    let i = match.index + match[0].length;
    while (text[i] === ' ') i++;
    if (text[i] === '{') {
      const group = braceGroup(text, i);
      const unfinished = group.end === text.length && text[text.length - 1] !== '}';
      // An unclosed box at the end is an answer cut short; a long one is a truncated generation, not an answer.
      if (unfinished && (group.content.length > 100 || group.content.includes('\n'))) continue;
      boxes.push({ content: group.content, start: match.index, end: group.end });
    } else {
      // \boxed 5 — a single token
      const token = /^[^\s$]+/.exec(text.slice(i));
      if (token) boxes.push({ content: token[0], start: match.index, end: i + token[0].length });
    }
  }
  return boxes;
}

const BOX_SEPARATOR =
  /^(?:\s|,|;|\.|\$|\\[()[\]]|\\quad|\\qquad|\\text\{[^{}]{0,40}?\b(?:and|or)\s*\}|\b[a-z]{1,20}\s+(?:and|or)\b|\band\b|\bor\b|\\,)*$/i;

/** The last box of `text`, joined with the boxes before it that only separators part from it; null without one. */
export function lastBoxed(text: string, boxes: Box[] = findBoxes(text)): string | null {
  if (boxes.length === 0) return null;
  const joined = [boxes[boxes.length - 1].content];
  for (let i = boxes.length - 2; i >= 0; i--) {
    if (!BOX_SEPARATOR.test(text.slice(boxes[i].end, boxes[i + 1].start))) break;
    joined.unshift(boxes[i].content);
  }
  return joined.join(', ');
}

/** Text after a marker up to the end of its sentence: a $…$ group if it starts with one, else to a newline. */
function phraseAfter(text: string, index: number): string {
  const rest = text
    .slice(index)
    .replace(/\*\*/g, '') // markdown bold
    .replace(/^[\s:*]+/, '');
  const envs = [
    ['$$', '$$'],
    ['\\[', '\\]'],
    ['\\(', '\\)'],
    ['$', '$'],
  ];
  for (const [open, close] of envs) {
    if (rest.startsWith(open)) {
      const end = rest.indexOf(close, open.length);
      if (end > 0) return rest.slice(open.length, end);
    }
  }
  const line = rest.split('\n')[0];
  // "… is 5. I hope it is correct." — stop at a sentence end (a period followed by a space and a capital)
  return line
    .replace(/\.\s+(?:I hope|[A-Z]).*$/, '')
    .replace(/\.\s*$/, '')
    .trim();
}

function lastMatchIndex(text: string, pattern: RegExp): number {
  let index = -1;
  for (const match of text.matchAll(pattern)) index = match.index + match[0].length;
  return index;
}

function lastLatexEnv(text: string): string | null {
  // An escaped dollar (`\$`, currency) is never a delimiter: `$ \frac{1}{2} \$ = \frac{10}{9} $` is one group.
  // Display math ($$…$$, \[…\]) may span lines, inline math ($…$, \(…\)) may not (Math-Verify).
  const pattern =
    /\$\$([\s\S]+?)\$\$|\\\[([\s\S]+?)\\\]|\\\(([^\n]+?)\\\)|(?<!\\)\$((?:\\\$|[^$\n])+?)(?<!\\)\$/g;
  let last: string | null = null;
  for (const match of text.matchAll(pattern)) last = match[1] ?? match[2] ?? match[3] ?? match[4];
  return last?.trim() || null;
}

// A number in plain text: thousands groups (1,234,567 or 1 234 567), a decimal point or a decimal comma
// (2,75; three digits after a comma read as thousands), a /denominator, a percent sign. Never a digit inside a
// word ('AZYUK2A' has no number; '5cm' and '5 apples' do).
const NUMBER =
  /(?<![A-Za-z_\d.,])(?:-?(?:0,\d+|[1-9]\d{0,2}(?:,\d{3})+(?!\d)|[1-9]\d{0,2}(?: \d{3})+(?![\d,.])|\d+(?:,(?!\d{3}(?!\d))\d+)?)(?:\.\d+)?(?:\s*\/\s*\d+)?(?:\s*(?:%|\\%))?|-?\.\d+)(?![A-Za-z](?![A-Za-z²³])|[A-Za-z]\d)/g;

function lastNumber(text: string): string | null {
  let last: string | null = null;
  for (const match of text.matchAll(NUMBER)) last = match[0];
  return last;
}

/** Words of three or more letters outside LaTeX commands and \text{} groups. */
function proseWords(text: string): number {
  const words = text
    .replace(/\\(?:text|mathrm|mbox|textbf|begin|end)\s*\{[^{}]*\}/g, ' ')
    .replace(/\\[a-zA-Z]+/g, ' ')
    .match(/[A-Za-z]{3,}/g);
  return words?.length ?? 0;
}

/** One short line that is all mathematics or all words: '\frac{1}{2}', 'x = 3', 'Evelyn'. */
function isBareAnswer(text: string): boolean {
  const trimmed = text.trim();
  if (trimmed === '' || trimmed.length > 120 || trimmed.includes('\n')) return false;
  const words = proseWords(trimmed);
  // mathematics without words ('x = 3'), or a short phrase of words only ('Evelyn', 'no solution');
  // 'Maybe 5' is neither (its last number is the answer)
  return words === 0 || (/^[A-Za-z][A-Za-z '-]*$/.test(trimmed) && words <= 3);
}

/** Math-Verify's extraction families: `latex` (\boxed{}, math delimiters), `expr` (a bare answer, the last
 * number). "final answer is" and "answer:" statements are read under either. */
export type MatchType = 'latex' | 'expr';

export interface ExtractOptions {
  /** Accept only \boxed{} answers. */
  boxedOnly?: boolean;
  /** The extraction families to use (default both). */
  matchTypes?: readonly MatchType[];
}

/** The answer of the last "final answer is/:" statement, and where the statement is; null without one. */
function finalCandidate(completion: string): { candidate: Extracted; index: number } | null {
  const finalIndex = lastMatchIndex(completion, /final answer\s*(?:is|:)/gi);
  if (finalIndex < 0) return null;
  let phrase = phraseAfter(completion, finalIndex);
  // "Final Answer: The largest $n$ is 34." — Math-Verify's `final answer.{0,100}? is X`
  const is = /^.{0,100}?\s(?:is|are|equals)\s+(?=\S)/.exec(phrase);
  if (phrase && proseWords(phrase) > 0 && is) phrase = phraseAfter(phrase, is[0].length);
  if (phrase && proseWords(phrase) <= 2)
    return { candidate: { answer: phrase, source: 'final' }, index: finalIndex };
  else if (phrase && !phrase.includes('$')) {
    // "Final Answer: Jane started growing Sphere 3 hours ago." — prose with exactly one number: that number.
    const numbers = [...phrase.matchAll(NUMBER)];
    if (numbers.length === 1)
      return { candidate: { answer: numbers[0][0], source: 'final' }, index: finalIndex };
  }
  return null;
}

/** Chat templates' end-of-turn and turn-start tokens (ChatML, Llama 3, GPT-2's end of text). */
const END_OF_TURN = /<\|(?:im_end|im_start|endoftext|eot_id|start_header_id)\|>/;

/** The model's final answer, by the priorities above; null when none is found. */
export function extractAnswer(completion: string, options: ExtractOptions = {}): Extracted | null {
  return extractCandidates(completion, options)[0] ?? null;
}

/**
 * All candidate answers, best first. A box is final (only the box is returned: a model that boxed
 * something unparseable answered wrongly), unless a final-answer statement follows the last box (then that
 * statement first, the box second); without one, the verifier tries the other priorities in order until
 * one parses, as Math-Verify does.
 */
export function extractCandidates(given: string, options: ExtractOptions = {}): Extracted[] {
  // What follows an end-of-turn or a new turn's token is not the model's answer (`… is 19. <|im_start|>user`).
  const completion = given.split(END_OF_TURN)[0];
  const latex = options.matchTypes?.includes('latex') ?? true;
  const expr = options.matchTypes?.includes('expr') ?? true;
  const boxes = latex ? findBoxes(completion) : [];
  if (boxes.length > 0) {
    const box: Extracted = { answer: (lastBoxed(completion, boxes) ?? '').trim(), source: 'boxed' };
    // A final-answer statement after the last box is the model's last word (`\boxed{255}` on a step,
    // then "The final answer is $10,455$"); the box stays the fallback.
    const final = options.boxedOnly ? null : finalCandidate(completion);
    return final && final.index > boxes[boxes.length - 1].end ? [final.candidate, box] : [box];
  }
  if (options.boxedOnly) return [];
  const candidates: Extracted[] = [];
  const final = finalCandidate(completion);
  if (final) candidates.push(final.candidate);
  const answerIndex = lastMatchIndex(completion, /\banswer\s*(?::|=|is\b)/gi);
  if (answerIndex >= 0) {
    const phrase = phraseAfter(completion, answerIndex);
    // "check my answer: it should …" is prose, not an answer
    if (phrase && proseWords(phrase) <= 2) candidates.push({ answer: phrase, source: 'answer' });
  }
  const env = latex ? lastLatexEnv(completion) : null;
  if (env) candidates.push({ answer: env, source: 'latex' });
  if (!expr) return candidates;
  if (isBareAnswer(completion)) candidates.push({ answer: completion.trim(), source: 'whole' });
  const number = lastNumber(completion);
  if (number) candidates.push({ answer: number, source: 'number' });
  return candidates;
}

// ---------- multiple choice ----------

const LETTER_ONLY = /^\(?\s*([A-E])\s*\)?[.:]?$/;

export interface GoldChoice {
  letter: string;
  /** The choice's value when the gold gives one ('(D) 12' → '12'). */
  value: string | null;
}

/**
 * The gold's choice when it is a multiple-choice letter A–E: 'C', '(C)', 'C)', '\text{(C)}', '\textbf{C}',
 * or a parenthesised letter followed by its value: '(D) 12', '\textbf{(D)}\ 12'.
 */
export function goldChoice(gold: string): GoldChoice | null {
  const letter = letterOf(gold);
  if (letter) return { letter, value: null };
  const cleaned = gold
    .replace(/\$/g, '')
    .replace(/\\(?:text|textbf|mathrm|mathbf|mbox)\s*\{([^{}]*)\}/g, '$1')
    .trim();
  const match = /^\(\s*([A-E])\s*\)(?:\s|\\ |~|\\quad)*(\S.*)$/.exec(cleaned);
  return match ? { letter: match[1], value: match[2].trim() } : null;
}

function letterOf(text: string): string | null {
  const stripped = text
    .replace(/\$/g, '')
    .replace(/\\(?:text|textbf|mathrm|mathbf|mbox)\s*\{([^{}]*)\}/g, '$1')
    .trim();
  const match = LETTER_ONLY.exec(stripped);
  return match ? match[1] : null;
}

export interface ExtractedLetter {
  /** The letter(s) found; more than one means the model hedged. */
  letters: string[];
  source: AnswerSource;
}

/** Choice letters for a multiple-choice gold. A box or answer phrase listing several letters returns them all. */
export function extractLetters(completion: string, options: ExtractOptions = {}): ExtractedLetter | null {
  const lettersIn = (text: string): string[] => {
    const single = letterOf(text);
    if (single) return [single];
    const cleaned = text
      .replace(/\\(?:text|textbf|mathrm|mathbf|mbox)\s*\{([^{}]*)\}/g, '$1')
      .replace(/\$/g, '');
    // "(C) 12", "C) 12", "C: 12" — a letter leading the answer
    const leading = /^\s*\(?([A-E])(?:\)|:|\.\s)/.exec(cleaned);
    if (leading) return [leading[1]];
    const list = cleaned.split(/\s*(?:,|\bor\b|\band\b|\/)\s*/).map(letterOf);
    if (list.length > 1 && list.every((letter) => letter !== null)) return list as string[];
    return [];
  };
  const boxed = lastBoxed(completion);
  if (boxed !== null) return { letters: lettersIn(boxed), source: 'boxed' };
  if (options.boxedOnly) return null;
  for (const [pattern, source] of [
    [/final answer\s*(?:is|:)/gi, 'final'],
    [/\banswer\s*(?::|=|is\b)/gi, 'answer'],
  ] as const) {
    const index = lastMatchIndex(completion, pattern);
    if (index >= 0) {
      const letters = lettersIn(phraseAfter(completion, index));
      if (letters.length > 0) return { letters, source };
    }
  }
  // A bare letter as the last LaTeX environment or as the whole completion: '$E$', 'E'.
  for (const text of [lastLatexEnv(completion), completion]) {
    const letter = text === null ? null : letterOf(text);
    if (letter) return { letters: [letter], source: 'latex' };
  }
  // Fallback: the last "(C)" / "\text{(C)}" / "C)" in the text.
  let last: string | null = null;
  for (const match of completion.matchAll(/\(([A-E])\)|(?:^|\s)([A-E])\)/g)) last = match[1] ?? match[2];
  return last ? { letters: [last], source: 'latex' } : null;
}
