// Leakage guard shared by every scaffold that shows the policy part of a worked solution (hints in the
// prompt, forced oracle prefixes): the shown text may never contain the problem's final answer, or the
// scaffold would train "copy the answer" instead of "solve". No framework ships one (issue 13).
//
// What counts as the answer, as the tasks write it:
// - A numeric answer (optional sign, digits): any run of digits in the text whose digits END with the
//   answer's digits, separators between digits included (`,` `_` `'` space, thin space: "8,25", "8 25").
//   So "825" leaks in "A:825", in "1825" (the tail of a longer number: a column sum "05" leaks "5") and in
//   "8,25". The sign is ignored (a "-825" shows "825" too). Deliberately conservative: a small answer such
//   as "2" is also found in an operand "4-2", which costs hint length, never a leak. Not flagged: the
//   answer at the head of a longer number ("8250"), which does not give the answer's last digits.
// - Any other answer (string-compose's "debc", countdown's expression): the answer text itself, with any
//   whitespace allowed between its characters. Not caught: a derivation equivalent to the answer
//   (countdown's "25+3=28\n28*4=112" for "(25+3)*4"); that is the task's nature, not a verbatim leak.
// A violating text is cut back to just before the first occurrence (the start of the digit run); the
// caller drops what remains if it is too short to help (hints: QuestA's 10-character rule).

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
