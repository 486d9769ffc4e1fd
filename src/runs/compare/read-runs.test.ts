// readRuns groups runs by their configs with the current schema's defaults filled in, so a run written
// before a key existed groups with a newer run that spells the key out at its default.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { rlConfigSchema } from '../../training/rl/config.ts';
import { withRlDefaults } from '../../training/rl/config-defaults.ts';
import { RunStore } from '../run-store.ts';
import { readRuns } from './read-runs.ts';

const minimal = (name: string, seed: number, selector: string) => ({
  name,
  seed,
  tasks: [{ task: 'addition', difficulties: [3] }],
  selector: { name: selector },
  train: { steps: 2, batchSize: 2, learningRate: 1e-3 },
});

function makeRun(parent: string, name: string, config: unknown): string {
  const dir = join(parent, name);
  const store = RunStore.create(dir, config);
  store.logMetrics(2, { 'eval/pass@1': 0.5 });
  store.close();
  return dir;
}

it('a config written without a key and one with the key at its default form one group', () => {
  const parent = mkdtempSync(join(tmpdir(), 'compare-defaults-'));
  const dirs = [
    // An old run: config.json as written then (no algorithm block at all).
    makeRun(parent, 'uniform-s1', minimal('uniform-s1', 1, 'uniform')),
    // A newer run of the same setting: every default spelled out, as `curricula train` stores it now.
    makeRun(parent, 'uniform-s2', rlConfigSchema.parse(minimal('uniform-s2', 2, 'uniform'))),
    makeRun(parent, 'sec-s1', rlConfigSchema.parse(minimal('sec-s1', 1, 'sec'))),
  ];
  const { grouping, runs } = readRuns(dirs, withRlDefaults);
  expect(grouping.keys).toEqual(['selector.name']);
  expect(runs.map((run) => run.group)).toEqual(['uniform', 'uniform', 'sec']);
});
