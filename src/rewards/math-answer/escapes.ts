// Doubled backslashes from escaped strings: a gold or completion that went through one escaping too many
// (a raw string of an already-escaped JSON or Python literal: `\\frac{1}{5}`, `\\left(`, `\\le`) has its
// commands written as `\\name`. When doubled commands outnumber single-backslash ones more than two to
// one (an escaped newline `\n` left in such a text reads as a single command), the backslashes are
// halved; otherwise the text is left as it is, so a matrix's row separator (`1\\ 2`, `x\\y` beside
// `\begin`/`\end`, `\frac12\\ \frac13`) is never touched. verify.ts applies this to the whole gold and
// completion, and again to the extracted answer, whose commands may all be doubled where the whole text's
// are not. One of the families where math-answer disagreed with Math-Verify's test suite (issue 31 item 7).

const doubledCommands = /\\\\[a-zA-Z]/g;
const singleCommands = /\\[a-zA-Z]/g;

/** The text with doubled backslashes halved when doubled commands dominate (see the file header). */
export function undoubleBackslashes(text: string): string {
  const doubled = text.match(doubledCommands)?.length ?? 0;
  if (doubled === 0) return text;
  const single = text.replace(/\\\\/g, '').match(singleCommands)?.length ?? 0;
  if (doubled <= 2 * single) return text;
  return text.replace(/\\\\/g, '\\');
}
