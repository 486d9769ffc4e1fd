// Finds the program in a completion: the last fenced block tagged with the problem's language, else the last
// untagged fenced block, else the whole text when the completion has no fence at all.
//
// TAROT (custom_rewards/*.py, `extract_code`) and open-r1 take the last ```python block and give an empty
// program when there is none. Deviation: we also accept an untagged fence and, for fence-free completions,
// the whole text (a bare program), and we say which one was used. A completion whose only fences are in
// other languages yields no program: running its prose as code would only produce a syntax error.
import type { Language } from './sandbox.ts';

export interface ExtractedProgram {
  /** The program text, or null when none was found. */
  code: string | null;
  /** What was used, e.g. 'last ```python block', 'whole completion (no fence)'. */
  source: string;
  /** 1 when the program came from a fenced block. */
  fenced: boolean;
}

const tags: Record<Language, readonly string[]> = {
  python: ['python', 'python3', 'py'],
  javascript: ['javascript', 'js', 'node', 'nodejs', 'mjs', 'cjs'],
};

// A fence opens at the start of a line with three or more backticks and an optional info string, and closes
// with a line of at least as many backticks. An unclosed last fence runs to the end of the text (a
// completion cut off at max tokens still has its code graded).
//
// This was the regular expression /^(`{3,})[ \t]*([^\s`]*)[^\n]*\n([\s\S]*?)(?:^\1`*[ \t]*$|(?![\s\S]))/gm,
// whose opening line backtracked quadratically when no newline followed it (a 1 MB completion ran past
// 120 s). `findFences` is the same grammar as one forward pass over the text: line starts and ends are
// those of the regular expression's multiline mode (after and before \n, \r, U+2028, U+2029), and
// scanner-equivalence.test.ts checks it against the expression on random completions.

/** Completions longer than this many UTF-16 code units are not read at all (no program). */
export const maxCompletionChars = 1 << 20;
// The reason lists at most this many distinct fence tags, each cut to this length.
const listedTags = 8;
const listedTagChars = 40;

const backtick = 96;
const isLineTerminator = (code: number) => code === 10 || code === 13 || code === 0x2028 || code === 0x2029;

/** JavaScript's `\s`: WhiteSpace and LineTerminator code units. */
export function isSpace(code: number): boolean {
  if (code <= 32) return code === 32 || (code >= 9 && code <= 13);
  if (code < 0xa0) return false;
  return (
    code === 0xa0 ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000 ||
    code === 0xfeff
  );
}

interface Fence {
  tag: string;
  body: string;
}

/** One fence's info-string tag and body as ranges of the scanned text: [tagStart, tagEnd), [bodyStart, bodyEnd). */
export type FenceVisitor = (tagStart: number, tagEnd: number, bodyStart: number, bodyEnd: number) => void;

/** The fenced blocks of `text` in order, as the regular expression above finds them, in linear time. */
export function findFences(text: string): Fence[] {
  const fences: Fence[] = [];
  scanFences(text, (tagStart, tagEnd, bodyStart, bodyEnd) =>
    fences.push({ tag: text.slice(tagStart, tagEnd), body: text.slice(bodyStart, bodyEnd) }),
  );
  return fences;
}

/**
 * Calls `visit` with each fenced block of `text` in order, as ranges, in one forward pass that allocates
 * nothing per fence (a hostile completion can hold a hundred thousand of them).
 */
export function scanFences(text: string, visit: FenceVisitor): void {
  const n = text.length;
  let p = 0;
  while (p <= n) {
    // p is a line start: 0, or just after a line terminator.
    let q = p;
    while (q < n && text.charCodeAt(q) === backtick) q++;
    const ticks = q - p;
    if (ticks >= 3) {
      // The opening line runs to the next \n (only \n: `[^\n]*\n`). Without one, nothing here or later
      // can open a fence.
      const newline = text.indexOf('\n', q);
      if (newline < 0) break;
      while (q < newline && (text.charCodeAt(q) === 32 || text.charCodeAt(q) === 9)) q++;
      let tagEnd = q;
      while (tagEnd < newline && !isSpace(text.charCodeAt(tagEnd)) && text.charCodeAt(tagEnd) !== backtick)
        tagEnd++;
      // The body runs to the first line (a line start at or after bodyStart) of at least `ticks` backticks
      // and then only spaces or tabs, or else to the end of the text.
      const bodyStart = newline + 1;
      let j = bodyStart;
      let end = n;
      let bodyEnd = n;
      while (j <= n) {
        let k = j;
        while (k < n && text.charCodeAt(k) === backtick) k++;
        if (k - j >= ticks) {
          while (k < n && (text.charCodeAt(k) === 32 || text.charCodeAt(k) === 9)) k++;
          if (k === n || isLineTerminator(text.charCodeAt(k))) {
            bodyEnd = j;
            end = k;
            break;
          }
        }
        while (k < n && !isLineTerminator(text.charCodeAt(k))) k++;
        j = k + 1; // past the terminator (or n + 1: no more lines)
      }
      visit(q, tagEnd, bodyStart, bodyEnd);
      // The next fence opens at a line start at or after the end of this one.
      p = end;
      if (p > 0 && !isLineTerminator(text.charCodeAt(p - 1))) {
        while (p < n && !isLineTerminator(text.charCodeAt(p))) p++;
        p++;
      }
      continue;
    }
    while (q < n && !isLineTerminator(text.charCodeAt(q))) q++;
    p = q + 1;
  }
}

/**
 * The program in `completion`. A completion longer than `maxChars` is refused unread: what extraction and
 * the reason look at is capped before any parsing, as a program's output is.
 */
export function extractProgram(
  completion: string,
  language: Language,
  maxChars: number = maxCompletionChars,
): ExtractedProgram {
  if (completion.length > maxChars) {
    return {
      code: null,
      source: `completion longer than ${maxChars} characters (not read)`,
      fenced: false,
    };
  }
  // One pass keeps what the answer needs: the last tagged block, the last untagged one, the distinct tags.
  let fences = 0;
  let lastTagged: { tag: string; bodyStart: number; bodyEnd: number } | null = null;
  let lastUntagged: [number, number] | null = null;
  const seen = new Set<string>();
  scanFences(completion, (tagStart, tagEnd, bodyStart, bodyEnd) => {
    fences++;
    if (tagStart === tagEnd) {
      lastUntagged = [bodyStart, bodyEnd];
      return;
    }
    const tag = completion.slice(tagStart, tagEnd).toLowerCase();
    if (tags[language].includes(tag)) lastTagged = { tag, bodyStart, bodyEnd };
    else seen.add(tag);
  });
  if (fences === 0) {
    const code = completion.trim();
    return code
      ? { code: `${code}\n`, source: 'whole completion (no fence)', fenced: false }
      : { code: null, source: 'empty completion', fenced: false };
  }
  // (TypeScript does not follow the assignments inside the callback.)
  const tagged = lastTagged as { tag: string; bodyStart: number; bodyEnd: number } | null;
  if (tagged) {
    const code = completion.slice(tagged.bodyStart, tagged.bodyEnd);
    return { code, source: `last \`\`\`${tagged.tag} block`, fenced: true };
  }
  const untagged = lastUntagged as [number, number] | null;
  if (untagged) {
    return { code: completion.slice(...untagged), source: 'last untagged ``` block', fenced: true };
  }
  const distinct = [...seen];
  const shown = distinct
    .slice(0, listedTags)
    .map((tag) => (tag.length > listedTagChars ? `${tag.slice(0, listedTagChars)}…` : tag));
  if (distinct.length > listedTags) shown.push(`… ${distinct.length - listedTags} more`);
  const found = shown.join(', ');
  return { code: null, source: `no ${language} code block (fences found: ${found})`, fenced: false };
}

/**
 * Whether a JavaScript program uses ES-module syntax: a line that starts, after any whitespace (line breaks
 * included), with `import … from ` (before the next `;`), `import '…'` / `import "…"`, or `export `. This was
 * /^\s*(import\s[^;]*\sfrom\s|import\s+['"]|export\s)/m, which backtracked quadratically over long runs of
 * blank lines and over many `import` lines without a `;`; here it is one pass, checked against the
 * expression in scanner-equivalence.test.ts.
 */
export function usesModuleSyntax(code: string): boolean {
  const n = code.length;
  // `\sfrom\s` at or after a position: the smallest such start (n when none), cached; the positions asked
  // about only grow, so every character is looked at a bounded number of times.
  const fromPatternAt = (m: number) =>
    isSpace(code.charCodeAt(m)) && code.startsWith('from', m + 1) && isSpace(code.charCodeAt(m + 5));
  let fromAt = -1;
  const firstFrom = (from: number): number => {
    if (fromAt < from) {
      let m = from;
      while (m + 6 <= n && !fromPatternAt(m)) m++;
      fromAt = m + 6 <= n ? m : n;
    }
    return fromAt;
  };
  let semicolonAt = -1;
  const firstSemicolon = (from: number): number => {
    if (semicolonAt < from) {
      semicolonAt = code.indexOf(';', from);
      if (semicolonAt < 0) semicolonAt = n;
    }
    return semicolonAt;
  };
  // A candidate is a non-space character reached from a line start over whitespace only: the start of
  // the text, or the first non-space after a run of whitespace that holds a line terminator.
  let afterLineStart = true;
  for (let i = 0; i < n; i++) {
    const c = code.charCodeAt(i);
    if (isSpace(c)) {
      if (isLineTerminator(c)) afterLineStart = true;
      continue;
    }
    if (!afterLineStart) continue;
    afterLineStart = false;
    if (code.startsWith('export', i) && i + 6 < n && isSpace(code.charCodeAt(i + 6))) return true;
    if (!code.startsWith('import', i) || i + 6 >= n || !isSpace(code.charCodeAt(i + 6))) continue;
    // import\s+['"]
    let k = i + 6;
    while (k < n && isSpace(code.charCodeAt(k))) k++;
    if (k < n && (code.charCodeAt(k) === 39 || code.charCodeAt(k) === 34)) return true;
    // import\s[^;]*\sfrom\s: a `\sfrom\s` starting at i + 7 or later, before the first `;` from i + 7.
    const start = i + 7;
    if (firstFrom(start) < firstSemicolon(start)) return true;
  }
  return false;
}
