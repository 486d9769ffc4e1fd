// Doubled backslashes from escaped strings: a gold or completion that went through one escaping too many
// (a raw string of an already-escaped JSON or Python literal: `\\frac{1}{5}`, `\\left(`, `\\le`) has every
// command written as `\\name`. When every command of the text is written so — no `\name` with a single
// backslash — the backslashes are halved; a text with any single-backslash command is left as it is, so
// a matrix's row separator (`1\\ 2`, `\frac12\\ \frac13`) is never touched. One of the families where
// math-answer disagreed with Math-Verify's test suite (issue 31 item 7).

const doubledCommand = /\\\\[a-zA-Z]/;
const singleCommand = /(?<!\\)\\[a-zA-Z]/;

/** The text with doubled backslashes halved when all its commands are doubled (see the file header). */
export function undoubleBackslashes(text: string): string {
  if (!doubledCommand.test(text) || singleCommand.test(text.replace(/\\\\/g, ''))) return text;
  return text.replace(/\\\\/g, '\\');
}
