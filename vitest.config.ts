import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Every test's temporary files in one directory of the run, removed at the end (test/tmp-root.ts).
    globalSetup: ['./test/tmp-root.ts'],
    // One test file per core. Vitest's default leaves a core free (1 worker on this 2-core machine); many
    // files here wait on child processes and servers, so a second worker took `npm test` from 609 s to
    // 437 s on the idle machine (2026-12-01, every test passing both ways).
    maxWorkers: availableParallelism(),
    // The default reporter, then every skipped test with its reason (test/skip-summary.ts).
    reporters: ['default', './test/skip-summary.ts'],
  },
});
