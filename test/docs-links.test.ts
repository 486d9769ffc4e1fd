// The documentation has no dead links: every relative link in README.md, ARCHITECTURE.md, docs/ (but
// docs/api/, which is generated) and experiments/ points at a file or directory of this repository that
// a clone has (not one git ignores, not outside the repository), and every #anchor names a heading of
// its target, by GitHub's slug rules. Every page under docs/ is reachable from docs/README.md.
import { execFileSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { dirname, join, resolve, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  anchors,
  documentationPages,
  githubSlug,
  readPage,
  relativeLinks,
  repoRelative,
  repoRoot,
} from './docs/markdown.ts';

interface ResolvedLink {
  page: string;
  line: number;
  target: string;
  /** The file or directory it points at, relative to the repository ('' for a link within its page). */
  path: string;
  anchor: string | null;
}

function resolveLinks(page: string): ResolvedLink[] {
  return relativeLinks(readPage(page)).map(({ target, line }) => {
    const hash = target.indexOf('#');
    const pathPart = decodeURIComponent(hash < 0 ? target : target.slice(0, hash));
    const anchor = hash < 0 ? null : decodeURIComponent(target.slice(hash + 1));
    const absolute = pathPart === '' ? join(repoRoot, page) : resolve(repoRoot, dirname(page), pathPart);
    return { page, line, target, path: repoRelative(absolute), anchor };
  });
}

/** The paths among `paths` that git ignores (a clone would not have them); [] outside a git checkout. */
function ignoredByGit(paths: string[]): Set<string> {
  if (paths.length === 0) return new Set();
  try {
    const out = execFileSync('git', ['check-ignore', '--stdin'], {
      cwd: repoRoot,
      input: paths.join('\n'),
      encoding: 'utf8',
    });
    return new Set(out.split('\n').filter(Boolean));
  } catch {
    // Exit status 1: none of them is ignored (128: not a git checkout, where nothing can be checked).
    return new Set();
  }
}

const anchorCache = new Map<string, Set<string>>();
function anchorsOf(path: string): Set<string> {
  let found = anchorCache.get(path);
  if (!found) {
    found = anchors(readPage(path));
    anchorCache.set(path, found);
  }
  return found;
}

/** `page:line: target (why)` for every dead link of `pages`. */
function deadLinks(pages: string[]): string[] {
  const links = pages.flatMap(resolveLinks);
  const ignored = ignoredByGit(
    [...new Set(links.map((link) => link.path))].filter((path) => path !== '' && !path.startsWith('..')),
  );
  const dead: string[] = [];
  for (const link of links) {
    const why = problem(link, ignored);
    if (why) dead.push(`${link.page}:${link.line}: ${link.target} (${why})`);
  }
  return dead;
}

function problem(link: ResolvedLink, ignored: Set<string>): string | null {
  if (link.target.startsWith('/')) return 'absolute path: write it relative to the page';
  if (link.path.startsWith('..') || link.path.split('/')[0] === '..' || link.path.startsWith(sep)) {
    return 'outside the repository';
  }
  const absolute = join(repoRoot, link.path);
  if (!existsSync(absolute)) return 'no such file or directory';
  if (ignored.has(link.path)) return 'ignored by git: a clone does not have it';
  if (link.anchor === null) return null;
  if (statSync(absolute).isDirectory() || !link.path.endsWith('.md'))
    return 'anchor on a file that is not Markdown';
  if (!anchorsOf(link.path).has(link.anchor)) return `no heading with anchor #${link.anchor} in ${link.path}`;
  return null;
}

describe('documentation links', () => {
  const pages = documentationPages();

  it('covers the README, ARCHITECTURE, docs/ and experiments/', () => {
    expect(pages).toContain('README.md');
    expect(pages).toContain('ARCHITECTURE.md');
    expect(pages).toContain('docs/README.md');
    expect(pages).toContain('experiments/README.md');
    expect(pages.some((page) => page.startsWith('docs/api/'))).toBe(false);
  });

  it('has no dead relative link or anchor', () => {
    expect(deadLinks(pages)).toEqual([]);
  });

  it('reaches every docs/ page from docs/README.md', () => {
    const markdown = new Set(pages);
    const reached = new Set(['docs/README.md']);
    const queue = ['docs/README.md'];
    while (queue.length > 0) {
      const page = queue.shift()!;
      for (const link of resolveLinks(page)) {
        if (markdown.has(link.path) && !reached.has(link.path)) {
          reached.add(link.path);
          queue.push(link.path);
        }
      }
    }
    const unreachable = pages.filter((page) => page.startsWith('docs/') && !reached.has(page));
    expect(unreachable).toEqual([]);
  });
});

describe('the checks themselves', () => {
  it('slugs headings as GitHub does', () => {
    // Worked by hand with github-slugger's rules (what github.com uses), on headings of this repository.
    expect(githubSlug('`policy.workers`: the worker-parallel backend')).toBe(
      'policyworkers-the-worker-parallel-backend',
    );
    expect(githubSlug('ReLIFT — interleaved SFT (arXiv 2506.07527; code TheRoadQaQ/ReLIFT)')).toBe(
      'relift--interleaved-sft-arxiv-250607527-code-theroadqaqrelift',
    );
    expect(githubSlug('`curricula teach` and `curricula distill`')).toBe(
      'curricula-teach-and-curricula-distill',
    );
    expect(githubSlug('**Bold** and [a link](x.md) in Émile’s heading')).toBe(
      'bold-and-a-link-in-émiles-heading',
    );
  });

  it('numbers repeated headings and ignores headings inside code', () => {
    const found = anchors('# Notes\n\n## Notes\n\n```sh\n# not a heading\n```\n\n## Set `x`: 1\n');
    expect([...found]).toEqual(['notes', 'notes-1', 'set-x-1']);
  });

  it('finds links across lines and skips URLs and code', () => {
    const text = 'See [the\nguide](docs/a.md#b), `[not](c.md)`, [web](https://x.org) and\n[ref]: ../out.md\n';
    expect(relativeLinks(text)).toEqual([
      { target: 'docs/a.md#b', line: 1 },
      { target: '../out.md', line: 3 },
    ]);
  });

  it('reports a dead file, a missing anchor and a link outside the repository', () => {
    const links: ResolvedLink[] = [
      { page: 'README.md', line: 1, target: 'docs/none.md', path: 'docs/none.md', anchor: null },
      { page: 'README.md', line: 2, target: 'docs/README.md#nope', path: 'docs/README.md', anchor: 'nope' },
      { page: 'README.md', line: 3, target: '../shared/x.md', path: '../shared/x.md', anchor: null },
      {
        page: 'README.md',
        line: 4,
        target: 'docs/README.md#guides',
        path: 'docs/README.md',
        anchor: 'guides',
      },
    ];
    expect(links.map((link) => problem(link, new Set()))).toEqual([
      'no such file or directory',
      'no heading with anchor #nope in docs/README.md',
      'outside the repository',
      null,
    ]);
  });
});
