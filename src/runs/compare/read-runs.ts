// Run directories → the inputs of compareRuns: each run's metric series, seed and group label.
// Configs are compared with the current schema's defaults filled in (`withDefaults`, given by the caller:
// the run store knows no config schema): a run written before a config key existed (its config.json lacks
// `algorithm.relift`) groups with a newer run whose config.json spells the key out at its default, instead
// of forming a group of its own.
import { UserError } from '../../core/errors.ts';
import { type RunData, readRunData } from '../report/run-data.ts';
import type { ComparedRun } from './compare-runs.ts';
import { type Grouping, groupRuns } from './group-runs.ts';

export interface ReadRuns {
  runs: ComparedRun[];
  grouping: Grouping;
  data: RunData[];
}

/** A config with the current schema's defaults filled in; a config it cannot parse comes back as written. */
export type ConfigDefaults = (config: unknown) => unknown;

export function readRuns(
  runDirs: readonly string[],
  withDefaults: ConfigDefaults,
  by: readonly string[] = [],
): ReadRuns {
  if (runDirs.length === 0) throw new UserError('compare: give at least one run directory');
  const data = runDirs.map((dir) => readRunData(dir));
  const names = new Set<string>();
  for (const run of data) {
    if (names.has(run.name)) throw new UserError(`compare: two runs are named '${run.name}'; give each once`);
    names.add(run.name);
  }
  const grouping = groupRuns(
    data.map((run) => ({ name: run.name, config: withDefaults(run.config) })),
    by,
  );
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
