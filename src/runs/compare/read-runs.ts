// Run directories → the inputs of compareRuns: each run's metric series, seed and group label.
import { UserError } from '../../core/errors.ts';
import { type RunData, readRunData } from '../report/run-data.ts';
import type { ComparedRun } from './compare-runs.ts';
import { type Grouping, groupRuns } from './group-runs.ts';

export interface ReadRuns {
  runs: ComparedRun[];
  grouping: Grouping;
  data: RunData[];
}

export function readRuns(runDirs: readonly string[], by: readonly string[] = []): ReadRuns {
  if (runDirs.length === 0) throw new UserError('compare: give at least one run directory');
  const data = runDirs.map((dir) => readRunData(dir));
  const names = new Set<string>();
  for (const run of data) {
    if (names.has(run.name)) throw new UserError(`compare: two runs are named '${run.name}'; give each once`);
    names.add(run.name);
  }
  const grouping = groupRuns(data, by);
  const runs = data.map(
    (run): ComparedRun => ({
      name: run.name,
      group: grouping.labels.get(run.name)!,
      seed: seedOf(run.config),
      series: run.series,
    }),
  );
  return { runs, grouping, data };
}

function seedOf(config: unknown): number | null {
  const seed = (config as { seed?: unknown } | null)?.seed;
  return typeof seed === 'number' ? seed : null;
}
