// Side-by-side comparison of groups of runs (a setting × several seeds): the final held-out metrics as
// mean ± sample sd with a 95% t-interval over seeds, the mean learning curve, the steps each group needs
// to reach the baseline group's final value, and the seed-paired difference to the baseline. Pure: it
// takes metric series, not run directories (see read-runs.ts for those).
import { UserError } from '../../core/errors.ts';
import { sampleStd, tInterval } from '../../core/stats.ts';
import type { Point } from '../report/run-data.ts';

export interface ComparedRun {
  name: string;
  group: string;
  seed: number | null;
  /** Metric key → [step, value] points in step order. */
  series: ReadonlyMap<string, readonly Point[]>;
}

export interface CompareOptions {
  /** The metric steps-to-target and the paired differences are computed on (default eval/pass@1). */
  headline?: string;
  /** Metric keys whose final values are tabulated (default: every eval/pass@k key of the runs). */
  keys?: string[];
  /** The reference group, or a run of it (default: a group named 'uniform' if there is one, else none). */
  baseline?: string;
  /** Explicit target for steps-to-target (default: the baseline group's mean final headline value). */
  target?: number;
  /** Per-step metrics averaged over each run's steps (default: the selection/share/… keys). */
  meanKeys?: string[];
  /** Per-step metrics summed over each run's steps (default: trained tokens and step seconds). */
  sumKeys?: string[];
}

export interface Spread {
  mean: number;
  /** Sample standard deviation over runs (0 for one run). */
  sd: number;
  /** Half-width of the 95% Student-t interval over runs (0 for one run). */
  ci95: number;
  n: number;
  values: number[];
}

export interface GroupComparison {
  group: string;
  runs: string[];
  seeds: (number | null)[];
  /** Last logged step of each run (they differ when a run is unfinished). */
  lastSteps: number[];
  /** Metric key → its final value over the group's runs. */
  final: Record<string, Spread>;
  /** Metric key → its mean over each run's steps (what was practised), over the group's runs. */
  means: Record<string, Spread>;
  /** Metric key → its sum over each run's steps (tokens trained, seconds), over the group's runs. */
  sums: Record<string, Spread>;
  /** Mean headline curve over the runs, at the steps every run logged it. */
  curve: Point[];
  /** Area under each run's headline curve: its mean over the evaluations after step 0, over the runs. */
  auc?: Spread;
  /** First step at which the mean curve reaches the target (null: never, or no target). */
  stepsToTarget: number | null;
  /** The same per run (null: that run never reached it). */
  runStepsToTarget: (number | null)[];
  /** Final headline minus the baseline's, paired by seed (absent for the baseline or without common seeds). */
  pairedDelta?: Spread;
}

export interface Comparison {
  headline: string;
  keys: string[];
  baseline: string | null;
  target: number | null;
  groups: GroupComparison[];
}

const EVAL_PASS = /^eval\/pass@\d+(\/|$)/;
const DEFAULT_SUMS = ['losses/tokens', 'perf/step_seconds'];

export function compareRuns(runs: readonly ComparedRun[], options: CompareOptions = {}): Comparison {
  if (runs.length === 0) throw new Error('compareRuns: no runs');
  const headline = options.headline ?? 'eval/pass@1';
  const keys =
    options.keys ??
    [...new Set(runs.flatMap((run) => [...run.series.keys()].filter((key) => EVAL_PASS.test(key))))].sort();
  const allKeys = [...new Set(runs.flatMap((run) => [...run.series.keys()]))].sort();
  const meanKeys = options.meanKeys ?? allKeys.filter((key) => key.startsWith('selection/share/'));
  const sumKeys = options.sumKeys ?? DEFAULT_SUMS.filter((key) => allKeys.includes(key));
  const byGroup = new Map<string, ComparedRun[]>();
  for (const run of runs) {
    if (!byGroup.has(run.group)) byGroup.set(run.group, []);
    byGroup.get(run.group)!.push(run);
  }
  // --baseline names a group, or a run whose group is the baseline (labels of many keys are long).
  const baselineRun = runs.find((run) => run.name === options.baseline);
  const baseline =
    options.baseline === undefined
      ? byGroup.has('uniform')
        ? 'uniform'
        : null
      : byGroup.has(options.baseline)
        ? options.baseline
        : (baselineRun?.group ?? options.baseline);
  if (baseline !== null && !byGroup.has(baseline)) {
    throw new UserError(
      `baseline '${baseline}' is neither a group nor a run; groups: ${[...byGroup.keys()].join(', ')}`,
    );
  }
  const baselineRuns = baseline === null ? [] : byGroup.get(baseline)!;
  const baselineFinals = baselineRuns.map((run) => finalValue(run, headline)).filter(isNumber);
  const target = options.target ?? (baselineFinals.length > 0 ? spread(baselineFinals).mean : null);

  // The baseline first, the other groups in the order their first run was given.
  const ordered = [...byGroup].sort(([a], [b]) => Number(b === baseline) - Number(a === baseline));
  const groups = ordered.map(([group, members]): GroupComparison => {
    const final: Record<string, Spread> = {};
    for (const key of keys) {
      const values = members.map((run) => finalValue(run, key)).filter(isNumber);
      if (values.length > 0) final[key] = spread(values);
    }
    const over = (
      reduce: (points: readonly Point[], run: ComparedRun) => number,
      metricKeys: readonly string[],
    ) => {
      const result: Record<string, Spread> = {};
      for (const key of metricKeys) {
        const values = members
          .filter((run) => (run.series.get(key)?.length ?? 0) > 0)
          .map((run) => reduce(run.series.get(key)!, run));
        if (values.length > 0) result[key] = spread(values);
      }
      return result;
    };
    const curve = meanCurve(members.map((run) => run.series.get(headline) ?? []));
    const comparison: GroupComparison = {
      group,
      runs: members.map((run) => run.name),
      seeds: members.map((run) => run.seed),
      lastSteps: members.map((run) => lastStep(run)),
      final,
      // A step that did not log the key counts as 0 (selection/share/… is logged only for levels drawn).
      means: over((points, run) => sumOf(points) / Math.max(points.length, stepCount(run)), meanKeys),
      sums: over(sumOf, sumKeys),
      curve,
      stepsToTarget: target === null ? null : firstReaching(curve, target),
      runStepsToTarget: members.map((run) =>
        target === null ? null : firstReaching(run.series.get(headline) ?? [], target),
      ),
    };
    const areas = members
      .map((run) => (run.series.get(headline) ?? []).filter(([step]) => step > 0))
      .filter((points) => points.length > 0)
      .map((points) => sumOf(points) / points.length);
    if (areas.length > 0) comparison.auc = spread(areas);
    if (baseline !== null && group !== baseline) {
      const deltas: number[] = [];
      for (const run of members) {
        const partner = baselineRuns.find((other) => other.seed !== null && other.seed === run.seed);
        const mine = finalValue(run, headline);
        const theirs = partner ? finalValue(partner, headline) : undefined;
        if (isNumber(mine) && isNumber(theirs)) deltas.push(mine - theirs);
      }
      if (deltas.length > 0) comparison.pairedDelta = spread(deltas);
    }
    return comparison;
  });
  return { headline, keys, baseline, target, groups };
}

export function spread(values: readonly number[]): Spread {
  const interval = tInterval(values);
  return {
    mean: interval.mean,
    sd: sampleStd(values),
    ci95: interval.halfWidth,
    n: values.length,
    values: [...values],
  };
}

/** Mean of several curves at the steps all of them have. */
export function meanCurve(curves: readonly (readonly Point[])[]): Point[] {
  if (curves.length === 0) return [];
  const maps = curves.map((curve) => new Map(curve));
  const steps = [...maps[0].keys()]
    .filter((step) => maps.every((map) => map.has(step)))
    .sort((a, b) => a - b);
  return steps.map((step): Point => [step, maps.reduce((sum, map) => sum + map.get(step)!, 0) / maps.length]);
}

/** First step whose value reaches `target` (with a 1e-9 tolerance for float noise), or null. */
export function firstReaching(curve: readonly Point[], target: number): number | null {
  return curve.find(([, value]) => value >= target - 1e-9)?.[0] ?? null;
}

function finalValue(run: ComparedRun, key: string): number | undefined {
  const points = run.series.get(key);
  return points && points.length > 0 ? points[points.length - 1][1] : undefined;
}

function lastStep(run: ComparedRun): number {
  let last = 0;
  for (const points of run.series.values())
    if (points.length > 0) last = Math.max(last, points[points.length - 1][0]);
  return last;
}

/** Steps the run logged per-step metrics for (reward/mean is logged every step). */
function stepCount(run: ComparedRun): number {
  return run.series.get('reward/mean')?.length ?? 0;
}

function sumOf(points: readonly Point[]): number {
  return points.reduce((sum, [, value]) => sum + value, 0);
}

function isNumber(value: number | undefined): value is number {
  return value !== undefined && Number.isFinite(value);
}
