// A pilot for `curricula plan` (power.ts): run directories of one setting over seeds, read for the final
// value of a metric, grouped by the cold start each run started from (config init.checkpoint; a run from
// a fresh model groups by its model block), and the evaluation size their config names.
import { basename } from 'node:path';
import { UserError } from '../core/errors.ts';
import { RunStore } from '../runs/run-store.ts';

export interface PilotRun {
  name: string;
  coldStart: string;
  /** The metric's value at the run's last evaluation, and that step. */
  value: number;
  step: number;
}

export interface Pilot {
  runs: PilotRun[];
  /** The runs' values by cold start, in first-seen order. */
  groups: number[][];
  coldStarts: string[];
  /** The evaluation size of the pilot's runs: problems per evaluation of `metric` and samples each. */
  evalProblems: number;
  evalSamples: number;
}

interface EvalBlock {
  problemsPerDifficulty?: number;
  samples?: number;
}

interface PilotConfig {
  init?: { checkpoint?: string };
  model?: unknown;
  tasks?: { difficulties?: unknown[] }[];
  eval?: EvalBlock;
}

/**
 * Problems behind one evaluation of `metric`: per level for a per-level key (`eval/pass@1/<task>/<d>`),
 * else per level × levels of the task mix. At most: a level with fewer distinct problems (1-digit
 * addition has 25) evaluates all it has.
 */
function evalSize(config: PilotConfig, metric: string, where: string): { problems: number; samples: number } {
  const perLevel = config.eval?.problemsPerDifficulty;
  const samples = config.eval?.samples;
  if (typeof perLevel !== 'number' || typeof samples !== 'number') {
    throw new UserError(
      `${where}: its config.json has no eval.problemsPerDifficulty/eval.samples; give --pilot-eval-problems and --pilot-eval-samples`,
    );
  }
  const levels = (config.tasks ?? []).reduce((sum, task) => sum + (task.difficulties?.length ?? 0), 0);
  const perLevelMetric = metric.split('/').length > 2;
  return { problems: perLevelMetric ? perLevel : perLevel * Math.max(1, levels), samples };
}

/** A run's config and the last finite value of `metric` (only that series is read, not the whole run). */
function finalValue(dir: string, metric: string) {
  const store = RunStore.read(dir);
  try {
    const rows = store.series(metric).filter((row) => row.value !== null && Number.isFinite(row.value));
    return {
      name: basename(store.dir),
      config: (store.config() ?? {}) as PilotConfig,
      last: rows.at(-1),
      keys: rows.length > 0 ? [] : store.keys(),
    };
  } finally {
    store.close();
  }
}

export function readPilot(runDirs: readonly string[], metric: string): Pilot {
  if (runDirs.length < 2)
    throw new UserError('plan: a pilot needs two runs at least (of one setting, different seeds)');
  const runs: PilotRun[] = [];
  const sizes: { problems: number; samples: number }[] = [];
  for (const dir of runDirs) {
    const { name, config, last, keys } = finalValue(dir, metric);
    if (last === undefined) {
      const known = keys
        .filter((key) => key.startsWith('eval/'))
        .slice(0, 6)
        .join(', ');
      throw new UserError(
        `plan: run ${dir} has no metric '${metric}' (its eval metrics: ${known || 'none'}…); pass --metric`,
      );
    }
    const coldStart = config.init?.checkpoint ?? `fresh model ${JSON.stringify(config.model ?? null)}`;
    runs.push({ name, coldStart, value: last.value, step: last.step });
    sizes.push(evalSize(config, metric, dir));
  }
  const distinct = new Set(sizes.map((size) => `${size.problems}×${size.samples}`));
  if (distinct.size > 1) {
    throw new UserError(
      `plan: the pilot's runs evaluate different sizes (${[...distinct].join(', ')} problems × samples); give runs of one setting`,
    );
  }
  const coldStarts = [...new Set(runs.map((run) => run.coldStart))];
  const groups = coldStarts.map((start) =>
    runs.filter((run) => run.coldStart === start).map((run) => run.value),
  );
  return { runs, groups, coldStarts, evalProblems: sizes[0].problems, evalSamples: sizes[0].samples };
}
