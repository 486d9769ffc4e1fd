// Shared by the experiments' analyze.ts scripts: reading results and metrics, and mean ± sd formatting.
import { existsSync, readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';

/** One line of a run's metrics.jsonl. */
export type Row = Record<string, number | string>;

/** A JSON file, or undefined when it does not exist (a run not finished yet). */
export const readJson = <T>(path: string): T | undefined =>
  existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as T) : undefined;

/** The first of `candidates` that exists, read as metrics.jsonl (gzipped when it ends in .gz). */
export function readMetrics(candidates: readonly string[]): Row[] | undefined {
  const path = candidates.find((candidate) => existsSync(candidate));
  if (!path) return undefined;
  const bytes = readFileSync(path);
  const text = path.endsWith('.gz') ? gunzipSync(bytes).toString('utf8') : bytes.toString('utf8');
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Row);
}

export const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;

/** Sample standard deviation (n − 1); 0 for fewer than two values. */
export const sd = (values: number[]) =>
  values.length < 2
    ? 0
    : Math.sqrt(values.reduce((sum, value) => sum + (value - mean(values)) ** 2, 0) / (values.length - 1));

/** "mean ± sd" over seeds, the single value for one seed, "—" for none. */
export const fmt = (values: number[], digits = 2) =>
  values.length === 0
    ? '—'
    : values.length === 1
      ? values[0].toFixed(digits)
      : `${mean(values).toFixed(digits)} ± ${sd(values).toFixed(digits)}`;

/** "+mean ± sd (n=…)": a seed-paired difference over seeds. */
export const signed = (values: number[], digits = 3) =>
  values.length === 0
    ? '—'
    : `${mean(values) >= 0 ? '+' : ''}${mean(values).toFixed(digits)}${values.length > 1 ? ` ± ${sd(values).toFixed(digits)}` : ''} (n=${values.length})`;

/** The evaluation summary of a `--json` result (train initialEval/finalEval, eval). */
export interface Summary {
  groups: { task?: string; difficulty: number; passAt: Record<string, number> }[];
  metrics?: Record<string, number>;
}

/** pass@1 of one difficulty (and task, when given) of a summary. */
export const passAt1 = (summary: Summary | undefined, level: number, task?: string) =>
  summary?.groups.find((group) => group.difficulty === level && (task === undefined || group.task === task))
    ?.passAt['1'];

/** The mean over `levels` of pass@1, or undefined when a level is missing. */
export const levelMean = (summary: Summary | undefined, levels: readonly number[], task?: string) => {
  const values = levels.map((level) => passAt1(summary, level, task));
  return values.every((value) => value !== undefined) ? mean(values as number[]) : undefined;
};

/** The mean of `key` over the rows that have it, from the `from`-th to the `to`-th such row (slice rules). */
export const spanMean = (rows: readonly Row[], key: string, from: number, to?: number) => {
  const values = rows.map((row) => row[key]).filter((value): value is number => typeof value === 'number');
  const part = values.slice(from, to);
  return part.length > 0 ? mean(part) : undefined;
};

/** The evaluations a `curricula train --json` result holds (step 0 and the end). */
export interface TrainJson {
  initialEval?: Summary;
  finalEval: Summary;
}

/** The numbers among `values`. */
export const defined = (values: (number | undefined)[]) =>
  values.filter((value): value is number => value !== undefined);

/**
 * A markdown table of pass@1 per level, mean ± sd over seeds, and of the mean over the levels: one row per
 * setting, from that setting's evaluations (one per finished seed). Settings without any are left out.
 */
export function levelTable(title: string, levels: readonly number[], rows: [string, Summary[]][]): string[] {
  const lines = [`### ${title}`, '', `| setting | seeds | ${levels.map((l) => `${l}d`).join(' | ')} | mean |`];
  lines.push(`|---|---|${levels.map(() => '---|').join('')}---|`);
  for (const [label, summaries] of rows) {
    if (summaries.length === 0) continue;
    const cells = levels.map((level) => fmt(defined(summaries.map((summary) => passAt1(summary, level)))));
    const means = defined(summaries.map((summary) => levelMean(summary, levels)));
    lines.push(`| ${label} | ${summaries.length} | ${cells.join(' | ')} | ${fmt(means, 3)} |`);
  }
  return [...lines, ''];
}
