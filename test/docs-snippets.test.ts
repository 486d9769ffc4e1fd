// The code in the guides runs, so a guide cannot go stale: the fenced `ts` blocks of each page of
// docs/guides/ and of the README form one script per page, in page order (a block marked `ts no-run`
// is left out). The package's own name is pointed at the sources — `curricula` at src/index.ts and
// `curricula/<entry>` at src/api/<entry>.ts, the files package.json's exports compile from — and the
// script runs with `node --import tsx` in a fresh directory (its runs land there), where it must exit 0.
import { spawn } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { codeBlocks, readPage, repoRoot } from './docs/markdown.ts';

/** Pages whose `ts` blocks run. */
const pages = [
  'README.md',
  ...readdirSync(join(repoRoot, 'docs/guides'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/guides/${name}`),
];

/** Guides that must hold runnable code (a page of only `no-run` blocks would test nothing). */
const mustRun = [
  'README.md',
  'docs/guides/your-own-task.md',
  'docs/guides/your-own-reward.md',
  'docs/guides/your-own-selector.md',
];

/** The package's entry points as source files: '.' → src/index.ts, './rewards' → src/api/rewards.ts. */
function entrySources(): Map<string, string> {
  const manifest = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as {
    name: string;
    exports: Record<string, string | { types?: string }>;
  };
  const sources = new Map<string, string>();
  for (const [subpath, target] of Object.entries(manifest.exports)) {
    const types = typeof target === 'string' ? target : target.types;
    if (!types?.startsWith('./dist/') || !types.endsWith('.d.ts')) continue;
    const source = join(repoRoot, 'src', `${types.slice('./dist/'.length, -'.d.ts'.length)}.ts`);
    if (!existsSync(source)) throw new Error(`package.json exports ${subpath}: no source ${source}`);
    sources.set(subpath === '.' ? manifest.name : `${manifest.name}/${subpath.slice(2)}`, source);
  }
  return sources;
}

const entries = entrySources();

/** The runnable `ts` blocks of a page as one script, each block headed by its page and line. */
function pageScript(page: string): { script: string; blocks: number } {
  const runnable = codeBlocks(readPage(page)).filter(({ info }) => /^(ts|typescript)$/.test(info));
  const script = runnable.map(({ code, line }) => `// ${page}:${line}\n${rewriteImports(code)}`).join('\n\n');
  return { script, blocks: runnable.length };
}

function rewriteImports(code: string): string {
  return code.replace(
    /(from\s+|import\s*\(\s*)(['"])(curricula(?:\/[\w-]+)?)\2/g,
    (_whole, head, quote, name) => {
      const source = entries.get(name);
      if (!source) throw new Error(`import of '${name}': not an entry point of package.json's exports`);
      return `${head}${quote}${pathToFileURL(source).href}${quote}`;
    },
  );
}

/** Scripts are written inside the repository (ignored tmp/), so that their other imports (zod) resolve. */
const scriptsDir = join(repoRoot, 'tmp', 'docs-snippets');
const tsxLoader = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;

function runScript(file: string, cwd: string): Promise<{ status: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', tsxLoader, file], {
      cwd,
      env: { ...process.env, FORCE_COLOR: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
    });
    child.stderr.on('data', (chunk) => {
      output += chunk;
    });
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, output }));
  });
}

describe('code in the guides', () => {
  it('finds runnable code where there must be some', () => {
    for (const page of mustRun) expect(pageScript(page).blocks, page).toBeGreaterThan(0);
  });

  it('points the package name at the sources and refuses a name the package does not export', () => {
    expect(rewriteImports("import { train } from 'curricula';")).toBe(
      `import { train } from '${pathToFileURL(join(repoRoot, 'src/index.ts')).href}';`,
    );
    expect(rewriteImports("import type { Reward } from 'curricula/rewards';")).toContain(
      '/src/api/rewards.ts',
    );
    expect(() => rewriteImports("import { x } from 'curricula/internal';")).toThrow(/not an entry point/);
  });

  describe.concurrent('each page runs', () => {
    for (const page of pages) {
      const { script, blocks } = pageScript(page);
      if (blocks === 0) continue; // e.g. scaling-out.md: shell commands only
      it(`${page} (${blocks} blocks)`, { timeout: 120_000 }, async ({ expect }) => {
        mkdirSync(scriptsDir, { recursive: true });
        const file = join(scriptsDir, `${page.replace(/[/.]/g, '-')}.ts`);
        writeFileSync(file, script);
        const cwd = mkdtempSync(join(tmpdir(), 'curricula-docs-snippet-'));
        const { status, output } = await runScript(file, cwd);
        expect(status, `${file} (run in ${cwd}) exited with ${status}:\n${output.slice(-4000)}`).toBe(0);
        rmSync(cwd, { recursive: true, force: true }); // kept when the script fails, for a look
      });
    }
  });
});
