// Makes text a sandboxed program wrote (its stderr, its stdout, a fence tag from the completion) safe to
// print on a terminal or write into a log: a reward reason is shown by `curricula reward check` and logged
// during training, and an escape sequence there could retitle the terminal, hide lines, rewrite what was
// printed before (CR, cursor movement) or, on some terminals, answer back on stdin.
//
// Removed: ANSI escape sequences (CSI `ESC [ … final`, OSC `ESC ] … BEL|ST`, DCS/SOS/PM/APC strings up to
// ST, and two-byte `ESC x`), the 8-bit C1 controls (U+0080–U+009F, which include single-character CSI and
// OSC), every other C0 control but newline and tab (CR and backspace included), DEL, and the Unicode
// bidirectional overrides and isolates that reorder how a line reads. Residual risk: other Unicode that
// merely looks confusing (homoglyphs, zero-width characters) is kept.

// CSI (ESC [ or 8-bit U+009B) parameters intermediates final | OSC (ESC ] or U+009D) … BEL or ST |
// DCS/SOS/PM/APC (ESC P/X/^/_ or U+0090/98/9E/9F) … ST | ESC + one character. ST is ESC \ or U+009C.
const escapeSequence =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
  /(?:\u001b\[|\u009b)[0-?]*[ -/]*[@-~]|(?:\u001b\]|\u009d)[^\u0007\u001b\u009c]*(?:\u0007|\u001b\\|\u009c)?|(?:\u001b[PX^_]|[\u0090\u0098\u009e\u009f])[^\u001b\u009c]*(?:\u001b\\|\u009c)?|\u001b[\s\S]?/g;
// C0 controls but \t (09) and \n (0a); DEL; C1 controls; bidi embeddings, overrides and isolates.
const controlCharacter =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

/** `text` without terminal escape sequences and control characters (newline and tab are kept). */
export function printable(text: string): string {
  return text.replace(escapeSequence, '').replace(controlCharacter, '');
}
