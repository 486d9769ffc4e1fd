// User input quoted in an error message: at most QUOTE_LIMIT characters, the rest replaced by '…' and a
// count, so a 20 MB run name or path gives a one-line error, not a 20 MB one. JSON-quoted, so invisible and
// control characters show as escapes.

/** How many characters of a user's input an error message quotes. */
export const QUOTE_LIMIT = 80;

/** `text` cut to its first QUOTE_LIMIT characters, with '…' and the full length when it was longer. */
export function shortInput(text: string, limit = QUOTE_LIMIT): string {
  if (text.length <= limit) return text;
  return `${text.slice(0, limit)}… (${text.length} characters)`;
}

/** `text` JSON-quoted (escapes shown) and cut as shortInput does: '"abc…" (20000000 characters)'. */
export function quoteInput(text: string, limit = QUOTE_LIMIT): string {
  if (text.length <= limit) return JSON.stringify(text);
  return `${JSON.stringify(text.slice(0, limit)).slice(0, -1)}…" (${text.length} characters)`;
}
