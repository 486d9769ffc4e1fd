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
