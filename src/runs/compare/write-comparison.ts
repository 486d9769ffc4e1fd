// `curricula compare`: reads the runs, compares their groups, and writes <out>/compare.md with SVG mean
// curves (one chart per evaluated level, one line per group) and comparison.json.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../../core/durable-files.ts';
import { compareDifficulty, parseEvalKey } from '../report/eval-keys.ts';
import { lineChart } from '../report/plot.ts';
import { type CompareOptions, type Comparison, compareRuns, meanCurve } from './compare-runs.ts';
import { formatComparison } from './format-comparison.ts';
import { type ConfigDefaults, readRuns } from './read-runs.ts';

export interface WriteComparisonOptions extends CompareOptions {
  /** Config keys to group by (default: the keys whose values differ between the runs). */
  by?: string[];
  /** Fills a run's config with the current schema's defaults before grouping (read-runs.ts). */
  withDefaults: ConfigDefaults;
  /** Output directory. */
  out: string;
}

export interface WrittenComparison {
  comparison: Comparison;
  groupedBy: string[];
  markdown: string;
  markdownPath: string;
  jsonPath: string;
  plots: string[];
}

export async function writeComparison(
  runDirs: readonly string[],
  options: WriteComparisonOptions,
): Promise<WrittenComparison> {
  const { runs, grouping } = readRuns(runDirs, options.withDefaults, options.by);
  const comparison = compareRuns(runs, options);
  mkdirSync(options.out, { recursive: true });
  // One chart per evaluated level of the headline metric, plus the overall one.
  const headline = parseEvalKey(comparison.headline);
  const chartKeys = [
    comparison.headline,
    ...comparison.keys.filter((key) => {
      const parsed = parseEvalKey(key);
      return (
        headline !== null &&
        parsed?.metric === headline.metric &&
        parsed.k === headline.k &&
        parsed.task !== undefined
      );
    }),
  ].sort((a, b) => compareDifficulty(parseEvalKey(a)?.difficulty ?? '', parseEvalKey(b)?.difficulty ?? ''));
  const plots: { title: string; path: string }[] = [];
  for (const key of chartKeys) {
    const series = comparison.groups.map((group) => ({
      name: group.group,
      points: meanCurve(
        runs.filter((run) => run.group === group.group).map((run) => run.series.get(key) ?? []),
      ),
    }));
    if (series.every((entry) => entry.points.length === 0)) continue;
    const file = `${key.replace(/^eval\//, '').replace(/[^\w@.-]+/g, '_')}.svg`;
    const title = `${key.replace(/^eval\//, 'held-out ')} (mean over seeds)`;
    // The y axis is fitted to the data (not [0, 1]): differences between groups are the point here.
    writeFileAtomic(join(options.out, file), await lineChart({ title, series, yLabel: key }));
    plots.push({ title, path: file });
  }
  const markdown = formatComparison(comparison, { groupedBy: grouping.keys, plots });
  const markdownPath = join(options.out, 'compare.md');
  const jsonPath = join(options.out, 'comparison.json');
  writeFileAtomic(markdownPath, markdown);
  writeFileAtomic(jsonPath, `${JSON.stringify({ groupedBy: grouping.keys, ...comparison }, null, 2)}\n`);
  return {
    comparison,
    groupedBy: grouping.keys,
    markdown,
    markdownPath,
    jsonPath,
    plots: plots.map((plot) => join(options.out, plot.path)),
  };
}
