// The leakage guard as it was before issue 33 (src/guidance/leakage.ts at e17d674), frozen here so that
// analyze.ts can measure it on the same cases. Not used by the product.
export interface LeakCheck {
  /** The text cut back before the first occurrence of the answer (unchanged when there is none). */
  text: string;
  /** True when the answer occurred and the text was cut. */
  violated: boolean;
}

/** Digits with the separators a written number may carry between them. */
const digitRun = /\d(?:[,_' \u2009]?\d)*/g;

/** Where the answer first occurs in `text` (-1 = nowhere). */
export function answerPosition(text: string, answer: string): number {
  const trimmed = answer.trim();
  if (trimmed === '') return -1;
  const numeric = /^[-+]?\d+$/.exec(trimmed);
  if (numeric) {
    const digits = trimmed.replace(/^[-+]/, '');
    for (const match of text.matchAll(digitRun)) {
      if (match[0].replace(/\D/g, '').endsWith(digits)) return match.index;
    }
    return -1;
  }
  const pattern = [...trimmed.replace(/\s+/g, '')]
    .map((character) => character.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('\\s*');
  return text.search(new RegExp(pattern));
}

/** `text` with everything from the answer's first occurrence on removed. */
export function guardAgainstAnswer(text: string, answer: string): LeakCheck {
  const position = answerPosition(text, answer);
  if (position < 0) return { text, violated: false };
  return { text: text.slice(0, position), violated: true };
}
