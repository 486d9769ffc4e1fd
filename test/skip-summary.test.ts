// test/skip-summary.ts, the reporter that ends `npm test` with every skipped test and its reason: a real
// vitest run of a fixture file with a skipped block, a skipped test, a passing one and a todo.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from './helpers.ts';

describe('the skip summary reporter', () => {
  it('lists a skipped block once with its count and a skipped test by name, not a todo', () => {
    const run = spawnSync(
      process.execPath,
      [
        join(repoRoot, 'node_modules/vitest/vitest.mjs'),
        'run',
        '--config',
        join(repoRoot, 'test/fixtures/skip-summary/vitest.config.ts'),
      ],
      { cwd: repoRoot, encoding: 'utf8', timeout: 60_000, env: { ...process.env, NO_COLOR: '1' } },
    );
    expect(run.status).toBe(0);
    const summary = run.stdout.slice(run.stdout.indexOf('Skipped 3 tests:')).trim().split('\n');
    expect(summary).toEqual([
      'Skipped 3 tests:',
      '  sample.fixture.ts: a whole block (skipped: no widget) [2 tests]',
      '  sample.fixture.ts: a block that runs > one test (skipped: no gadget)',
    ]);
  });
});
