#!/usr/bin/env node
// The `curricula` command: runs the compiled CLI, dist/cli/main.js (scripts/build.mjs; `npm ci` and
// `npm pack` build it through `prepare`). An installed package has only dist/ and this is all it does.
//
// In a source checkout (scripts/source-fingerprint.mjs exists next to bin/; it is not in the package),
// dist/ may be older than the sources: the tests spawn this file after editing src/, and a developer runs
// `npm start` without rebuilding. There, dist/ runs only when dist/build-info.json records the fingerprint
// of the sources as they are now (every src/ file's path, size and mtime); otherwise the sources run
// through tsx (a devDependency), as they did before the package was compiled. So a stale build is never
// what runs, and no test can pass against one by accident. The check (~430 stat calls) took 12-30 ms on
// a loaded 2-core machine. CURRICULA_FROM_SOURCE=1 skips dist/ (e.g. to compare start-up times).
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = new URL('../', import.meta.url);
const fingerprintModule = new URL('scripts/source-fingerprint.mjs', root);

async function useSources() {
  if (process.env.CURRICULA_FROM_SOURCE === '1') return true;
  if (!existsSync(fingerprintModule)) return false;
  let built;
  try {
    built = JSON.parse(readFileSync(new URL('dist/build-info.json', root), 'utf8')).fingerprint;
  } catch {
    return true;
  }
  const { sourceFingerprint } = await import(fingerprintModule.href);
  return built !== sourceFingerprint(fileURLToPath(root));
}

if (await useSources()) {
  const tsx = await import('tsx/esm/api').catch(() => null);
  if (!tsx) {
    console.error(
      'error: the sources changed since dist/ was built (or it never was), and tsx, a devDependency, is not installed: run `npm run build`',
    );
    process.exit(2);
  }
  tsx.register();
  const { main } = await import('../src/cli/main.ts');
  await main(process.argv);
} else {
  // `--debug` prints stack traces: map them to the TypeScript sources (shipped beside dist/ for this).
  if (process.argv.includes('--debug')) process.setSourceMapsEnabled(true);
  const { main } = await import('../dist/cli/main.js');
  await main(process.argv);
}
