// Explains why a completion is not a given sequence of XML-like tag blocks (`<think>…</think><answer>…</answer>`
// and RLCR's longer sequence): the `format` and `calibration` rewards use it to name what is missing.

/**
 * Why `text` is not the tag blocks `tags` in order (whitespace between them only, nothing after the last)?
 * null when it is. The first block's opening tag is not required when `openFirst` is false (RLCR's and
 * R1's prefilled `<think>`). Closing tags are matched lazily (the first one), like `.*?` without
 * backtracking, so use it to explain a regex failure rather than to decide.
 */
export function tagSequenceProblem(text: string, tags: readonly string[], openFirst = true): string | null {
  let rest = text;
  for (const [i, tag] of tags.entries()) {
    const open = `<${tag}>`;
    const close = `</${tag}>`;
    if (i > 0 || openFirst) {
      const trimmed = rest.trimStart();
      if (!trimmed.startsWith(open)) {
        if (!rest.includes(open)) return `missing ${open}`;
        return i === 0 ? `text before ${open}` : `text between </${tags[i - 1]}> and ${open}`;
      }
      rest = trimmed.slice(open.length);
    }
    const end = rest.indexOf(close);
    if (end < 0) return `missing ${close}`;
    rest = rest.slice(end + close.length);
  }
  if (rest.trim() !== '') return `text after </${tags[tags.length - 1]}>`;
  return null;
}
