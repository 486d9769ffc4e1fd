// One character shown unambiguously in an error message: printable ASCII as is, others escaped, with the
// code point. Shared by the tokenizer's vocabulary errors and the text corpus's out-of-vocabulary check.

/** A character shown unambiguously: printable ASCII as is, others escaped; with its code point. */
export function describeCharacter(character: string): string {
  const code = character.codePointAt(0) ?? 0;
  const hex = `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
  const named: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };
  const shown =
    named[character] ??
    (code >= 0x20 && code <= 0x7e
      ? character
      : code > 0xffff
        ? `\\u{${code.toString(16)}}`
        : `\\u${code.toString(16).padStart(4, '0')}`);
  return `'${shown}' (${hex})`;
}
