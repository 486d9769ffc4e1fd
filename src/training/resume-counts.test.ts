// A resume with --config alongside (resume.ts): policy.workers and, on the native engine, policy.threads
// are stored resolved (pinWorkerCount), so a given config that leaves either `auto` or absent still matches
// the run it made; a pinned count that differs, or another engine, is refused by name.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../core/config.ts';
import { pinWorkerCount } from '../policy/parallel-options.ts';
import { RunStore } from '../runs/run-store.ts';
import { resumedRlConfig } from './resume.ts';
import { type RlConfig, rlConfigSchema } from './rl/config.ts';

const root = mkdtempSync(join(tmpdir(), 'resume-counts-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const config = (policy: Record<string, unknown>): RlConfig =>
  parseConfig(
    rlConfigSchema,
    {
      name: 'counts',
      tasks: [{ task: 'addition', difficulties: [1] }],
      train: { steps: 2, batchSize: 2, learningRate: 1e-4 },
      policy,
    },
    'test',
  );

describe('resume --config and the stored worker and thread counts', () => {
  it('matches auto or absent counts, and refuses a differing count or engine by name', () => {
    const dir = join(root, 'run');
    const stored = pinWorkerCount(config({ workers: 'auto', engine: 'native' }));
    expect(typeof stored.policy?.threads).toBe('number');
    RunStore.create(dir, stored).close();
    const workers = stored.policy?.workers;
    for (const policy of [
      { engine: 'native' },
      { workers: 'auto', engine: 'native', threads: 'auto' },
      { workers, engine: 'native' }, // the count pinned, the threads left to auto
    ])
      expect(resumedRlConfig({ dir, given: config(policy) }).config.policy).toEqual(stored.policy);
    const pinned = { workers: stored.policy?.workers, engine: 'native', threads: stored.policy?.threads };
    expect(resumedRlConfig({ dir, given: config(pinned) }).config.policy).toEqual(stored.policy);
    expect(() =>
      resumedRlConfig({ dir, given: config({ ...pinned, threads: (stored.policy?.threads as number) + 1 }) }),
    ).toThrow(/differs from the run's stored config at policy\.threads;/);
    expect(() => resumedRlConfig({ dir, given: config({ workers: 'auto', engine: 'tfjs' }) })).toThrow(
      /differs from the run's stored config at policy\.engine;/,
    );
  });
});
