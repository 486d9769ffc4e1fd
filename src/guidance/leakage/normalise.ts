// The text the leakage guard matches in (leak-forms.ts): the forms a hint can write an answer in, brought
// to one. Lower case; Unicode operators and minus signs to ASCII (× · ∗ ⋅ → *, ÷ ∕ → /, − – — → -,
// fullwidth digits to digits); operator words to symbols ("plus" +, "minus" -, "times" and "multiplied
// by" *, "divided by" /, "equals" =); number words to digits (number-words.ts: "one hundred twenty-nine"
// → 129, "one two nine" → "1 2 9"). Every character of the result keeps the index in the original text
// it came from (`origin`), so a leak found here cuts the original text before it.
import { isNumberWord, readNumbers } from './number-words.ts';

export interface Normalised {
  text: string;
  /** origin[i] = index in the original text of normalised character i (length text.length + 1). */
  origin: number[];
}

const symbols: Record<string, string> = {
  '×': '*',
  '·': '*',
  '∗': '*',
  '⋅': '*',
  '÷': '/',
  '∕': '/',
  '−': '-',
  '–': '-',
  '—': '-',
  '＋': '+',
  '＝': '=',
};

const operatorWords: Record<string, string> = {
  plus: '+',
  minus: '-',
  times: '*',
  multiplied: '*',
  divided: '/',
  equals: '=',
};

const pronounBefore = new Set([
  'last',
  'first',
  'next',
  'other',
  'this',
  'that',
  'each',
  'which',
  'any',
  'every',
  'no',
  'the',
]);

/** Lower case and symbols, one character at a time (so the origin map stays one to one). */
function characters(text: string): { text: string; origin: number[] } {
  let out = '';
  const origin: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const character = text[i];
    const code = character.charCodeAt(0);
    let mapped = symbols[character] ?? character;
    if (code >= 0xff10 && code <= 0xff19) mapped = String.fromCharCode(code - 0xff10 + 48);
    const lower = mapped.toLowerCase();
    out += lower.length === 1 ? lower : mapped;
    origin.push(i);
  }
  origin.push(text.length);
  // 'x' as a times sign: between a digit or ')' and a digit or '(' ("(25+3)x4", "43 x 3").
  out = out.replace(/(?<=[\d)]\s*)x(?=\s*[\d(])/g, '*');
  return { text: out, origin };
}

/** `text` normalised for the leakage guard, with the origin of every character. */
export function normalise(text: string): Normalised {
  const base = characters(text);
  let out = '';
  const origin: number[] = [];
  const emit = (piece: string, from: number) => {
    out += piece;
    for (let k = 0; k < piece.length; k++) origin.push(from);
  };
  const words = /[a-z]+(?:-[a-z]+)*/g;
  let at = 0;
  const matches = [...base.text.matchAll(words)];
  for (let m = 0; m < matches.length; m++) {
    const match = matches[m];
    const start = match.index;
    if (start < at) continue; // consumed with the word before ('by' of "divided by")
    // Copy what lies before this word unchanged.
    for (let i = at; i < start; i++) emit(base.text[i], base.origin[i]);
    const parts = match[0].split('-');
    // "one" as a pronoun ("the last one", "each one", "one of"): a word, not a number.
    const previous = m > 0 ? matches[m - 1][0] : '';
    const pronoun =
      match[0] === 'one' && (pronounBefore.has(previous) || /^ +of\b/.test(base.text.slice(start + 3)));
    if (!pronoun && parts.every(isNumberWord)) {
      // A run of number words, possibly across spaces, hyphens and 'and': read it whole.
      const run = [...parts];
      let end = start + match[0].length;
      let next = m + 1;
      while (next < matches.length) {
        const gap = base.text.slice(end, matches[next].index);
        const nextParts = matches[next][0].split('-');
        if (!/^[ ]+$/.test(gap)) break;
        if (matches[next][0] === 'and' && next + 1 < matches.length) {
          const after = matches[next + 1];
          const gap2 = base.text.slice(matches[next].index + 3, after.index);
          if (/^[ ]+$/.test(gap2) && after[0].split('-').every(isNumberWord)) {
            run.push(...after[0].split('-'));
            end = after.index + after[0].length;
            next += 2;
            continue;
          }
          break;
        }
        if (!nextParts.every(isNumberWord)) break;
        run.push(...nextParts);
        end = matches[next].index + matches[next][0].length;
        next++;
      }
      emit(readNumbers(run).join(' '), base.origin[start]);
      at = end;
      m = next - 1;
      continue;
    }
    const symbol = operatorWords[match[0]];
    if (symbol) {
      emit(symbol, base.origin[start]);
      at = start + match[0].length;
      // "multiplied by", "divided by": the 'by' goes with the operator.
      const by = /^ +by\b/.exec(base.text.slice(at));
      if ((match[0] === 'multiplied' || match[0] === 'divided') && by) at += by[0].length;
      continue;
    }
    for (let i = start; i < start + match[0].length; i++) emit(base.text[i], base.origin[i]);
    at = start + match[0].length;
  }
  for (let i = at; i < base.text.length; i++) emit(base.text[i], base.origin[i]);
  origin.push(text.length);
  return { text: out, origin };
}
