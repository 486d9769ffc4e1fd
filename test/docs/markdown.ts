// Reading the repository's Markdown for the documentation tests (test/docs-links.test.ts,
// test/docs-snippets.test.ts): which pages there are, their fenced code blocks, their relative links
// and their headings' anchors, with GitHub's slug rules.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

export const repoRoot = resolve(import.meta.dirname, '../..');

/** A fenced code block: its info string (```ts no-run → 'ts no-run'), its text, the line of its fence. */
export interface CodeBlock {
  info: string;
  code: string;
  /** 1-based line of the opening fence. */
  line: number;
}

/** A Markdown link or image whose target is not a URL, with the line it starts on. */
export interface MarkdownLink {
  target: string;
  /** 1-based line in its file. */
  line: number;
}

/** The documentation pages the tests cover, relative to the repository: README, ARCHITECTURE, docs/ (not docs/api/), experiments/. */
export function documentationPages(): string[] {
  const pages = ['README.md', 'ARCHITECTURE.md'];
  for (const dir of ['docs', 'experiments']) {
    pages.push(...markdownUnder(dir).filter((page) => !page.startsWith('docs/api/')));
  }
  return pages;
}

function markdownUnder(dir: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(join(repoRoot, dir), { withFileTypes: true })) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) found.push(...markdownUnder(path));
    else if (entry.name.endsWith('.md')) found.push(path);
  }
  return found.sort();
}

export function readPage(page: string): string {
  return readFileSync(join(repoRoot, page), 'utf8');
}

/** The page's path relative to the repository, with forward slashes. */
export function repoRelative(path: string): string {
  return relative(repoRoot, path).split('\\').join('/');
}

const fence = /^ {0,3}(`{3,}|~{3,})\s*(.*)$/;

/** Fenced code blocks in order. */
export function codeBlocks(text: string): CodeBlock[] {
  const blocks: CodeBlock[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const open = lines[i].match(fence);
    if (!open) continue;
    const marker = open[1];
    const body: string[] = [];
    let j = i + 1;
    while (j < lines.length && !isClosingFence(lines[j], marker)) body.push(lines[j++]);
    blocks.push({ info: open[2].trim(), code: body.join('\n'), line: i + 1 });
    i = j;
  }
  return blocks;
}

function isClosingFence(line: string, marker: string): boolean {
  const trimmed = line.trim();
  return trimmed.startsWith(marker) && trimmed.replace(/[`~]/g, '') === '' && trimmed[0] === marker[0];
}

/**
 * The text with fenced code blocks and inline code spans blanked out (line breaks kept, so line numbers
 * stay right), so that a link inside code is not taken for one.
 */
export function withoutCode(text: string): string {
  return blankCodeBlocks(text, (line) => line.replace(/(`+)[\s\S]*?\1/g, (span) => ' '.repeat(span.length)));
}

/** Lines inside fenced code blocks (and the fences) blanked; every other line passed through `outside`. */
function blankCodeBlocks(text: string, outside: (line: string) => string): string {
  let marker: string | null = null;
  return text
    .split('\n')
    .map((line) => {
      if (marker !== null) {
        if (isClosingFence(line, marker)) marker = null;
        return '';
      }
      const open = line.match(fence);
      if (open) {
        marker = open[1];
        return '';
      }
      return outside(line);
    })
    .join('\n');
}

/** Inline links and images `[text](target)` and reference definitions `[label]: target`, outside code. */
export function relativeLinks(text: string): MarkdownLink[] {
  const prose = withoutCode(text);
  const links: MarkdownLink[] = [];
  const lineOf = (index: number) => prose.slice(0, index).split('\n').length;
  // The text may span lines and hold one level of brackets ([`a[0]`](x) is blanked to spaces anyway).
  const inline = /!?\[(?:[^[\]]|\[[^[\]]*\])*\]\(\s*(<[^>]*>|[^)\s]+)(?:\s+["'(][^)]*)?\)/g;
  for (const match of prose.matchAll(inline)) {
    links.push({ target: match[1].replace(/^<|>$/g, ''), line: lineOf(match.index) });
  }
  for (const match of prose.matchAll(/^ {0,3}\[[^\]]+\]:\s*(\S+)/gm)) {
    links.push({ target: match[1].replace(/^<|>$/g, ''), line: lineOf(match.index) });
  }
  return links.filter(({ target }) => !/^[a-z][a-z0-9+.-]*:/i.test(target)).sort((a, b) => a.line - b.line);
}

/**
 * GitHub's anchor for a heading's text: the rendered text (code spans, emphasis and links reduced to
 * their text), lower-cased, every character that is not a letter, a digit, a mark, `_`, `-` or a space
 * removed, then each space turned into `-` (github-slugger, which github.com follows).
 */
export function githubSlug(heading: string): string {
  const rendered = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, '')
    .replace(/`/g, '')
    .replace(/\*\*|__|\*/g, '');
  return rendered
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}_\- ]/gu, '')
    .replace(/ /g, '-');
}

/** Every anchor a page defines: its headings' slugs (repeats numbered -1, -2, … as GitHub does) and explicit `<a id>`/`<a name>` anchors. */
export function anchors(text: string): Set<string> {
  const found = new Set<string>();
  const seen = new Map<string, number>();
  const prose = withoutCodeBlocksOnly(text);
  for (const match of prose.matchAll(/^ {0,3}#{1,6}[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$/gm)) {
    const base = githubSlug(match[1].trim());
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    found.add(count === 0 ? base : `${base}-${count}`);
  }
  for (const match of prose.matchAll(/<a\s+(?:id|name)=["']([^"']+)["']/g)) found.add(match[1]);
  return found;
}

/** Fenced code blocks blanked, inline code kept (a heading's code span is part of its anchor). */
function withoutCodeBlocksOnly(text: string): string {
  return blankCodeBlocks(text, (line) => line);
}
