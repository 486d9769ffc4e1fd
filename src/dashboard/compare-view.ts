// The compare view: runs grouped as `curricula compare` groups them (readRuns → groupRuns: runs that differ
// only in seed form one group), each group's mean curve with a ±1 sd band per chosen metric (at the steps
// every run of the group logged it, like compare-runs.ts's meanCurve), and compareRuns' final-value table
// with the seed-paired deltas against the baseline group.
import { type Comparison, compareRuns, spread } from '../runs/compare/compare-runs.ts';
import { readRuns } from '../runs/compare/read-runs.ts';
import { withRlDefaults } from '../training/rl/config-defaults.ts';
import { DashboardError } from './errors.ts';

export interface GroupCurves {
  group: string;
  runs: string[];
  /** metric → [steps, mean, mean − sd, mean + sd]. */
  curves: Record<string, [number[], number[], number[], number[]]>;
}

export interface CompareView {
  groupedBy: string[];
  groups: GroupCurves[];
  comparison: Comparison;
}

export interface CompareRequest {
  dirs: string[];
  keys: string[];
  headline?: string;
  baseline?: string;
}

export function compareView(request: CompareRequest): CompareView {
  if (request.dirs.length === 0) throw new DashboardError(400, 'compare: choose at least one run');
  const { runs, grouping } = readRuns(request.dirs, withRlDefaults);
  const byGroup = new Map<string, typeof runs>();
  for (const run of runs) {
    if (!byGroup.has(run.group)) byGroup.set(run.group, []);
    byGroup.get(run.group)!.push(run);
  }
  const groups: GroupCurves[] = [...byGroup].map(([group, members]) => {
    const curves: GroupCurves['curves'] = {};
    for (const key of request.keys) {
      const perRun = members.map((run) => new Map(run.series.get(key) ?? []));
      const steps = [...perRun[0].keys()].filter((step) => perRun.every((points) => points.has(step)));
      steps.sort((a, b) => a - b);
      const stats = steps.map((step) => spread(perRun.map((points) => points.get(step)!)));
      curves[key] = [
        steps,
        stats.map((s) => s.mean),
        stats.map((s) => s.mean - s.sd),
        stats.map((s) => s.mean + s.sd),
      ];
    }
    return { group, runs: members.map((run) => run.name), curves };
  });
  const comparison = compareRuns(runs, {
    headline: request.headline,
    baseline: request.baseline,
  });
  return { groupedBy: grouping.keys, groups, comparison };
}
