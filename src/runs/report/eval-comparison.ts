// The before/after comparison of a run's held-out evaluations, read back from the logged metrics: the
// evaluation at step 0 (before training) against the last evaluated step, per task and difficulty, for
// pass@1 and the largest pass@k. The logged metrics do not carry problem counts, so unlike
// src/eval/before-after.ts (which formats two EvalSummary objects) this table has no 'problems' column.
import { compareDifficulty, parseEvalKey } from './eval-keys.ts';
import { type RunData, valueAt } from './run-data.ts';

export interface ComparisonRow {
  /** 'all tasks' for the overall row (then difficulty is ''). */
  task: string;
  difficulty: string;
  pass1Before?: number;
  pass1After?: number;
  passKBefore?: number;
  passKAfter?: number;
}

export interface EvalComparison {
  /** 0 when the run has its initial evaluation; otherwise undefined. */
  beforeStep?: number;
  /** The last evaluated step after 0; undefined when only the initial evaluation exists. */
  afterStep?: number;
  /** Largest k evaluated (1 when only pass@1 exists). */
  k: number;
  rows: ComparisonRow[];
}

export const OVERALL = 'all tasks';

/** Steps at which any eval/pass@… metric was logged, ascending. */
export function evalSteps(run: RunData): number[] {
  const steps = new Set<number>();
  for (const [key, points] of run.series) {
    if (parseEvalKey(key)?.metric !== 'pass') continue;
    for (const [step] of points) steps.add(step);
  }
  return [...steps].sort((a, b) => a - b);
}

/** Null when the run logged no evaluation at all. */
export function compareEvals(run: RunData): EvalComparison | null {
  const steps = evalSteps(run);
  if (steps.length === 0) return null;
  const beforeStep = steps[0] === 0 ? 0 : undefined;
  const last = steps[steps.length - 1];
  const afterStep = last > 0 ? last : undefined;
  const evaluated = [beforeStep, afterStep].filter((step) => step !== undefined);

  const passKeys = [...run.series.keys()]
    .map((key) => ({ key, parsed: parseEvalKey(key) }))
    .filter(
      ({ key, parsed }) =>
        parsed?.metric === 'pass' &&
        evaluated.some((step) => valueAt(run.series.get(key), step) !== undefined),
    );
  const k = Math.max(1, ...passKeys.map(({ parsed }) => parsed!.k));

  const groups = new Map<string, { task: string; difficulty: string }>();
  for (const { parsed } of passKeys) {
    if (parsed!.task === undefined) continue;
    groups.set(`${parsed!.task}\u0000${parsed!.difficulty}`, {
      task: parsed!.task,
      difficulty: parsed!.difficulty!,
    });
  }
  const ordered = [...groups.values()].sort(
    (a, b) => a.task.localeCompare(b.task) || compareDifficulty(a.difficulty, b.difficulty),
  );
  const at = (key: string, step: number | undefined) =>
    step === undefined ? undefined : valueAt(run.series.get(key), step);
  const row = (task: string, difficulty: string, suffix: string): ComparisonRow => ({
    task,
    difficulty,
    pass1Before: at(`eval/pass@1${suffix}`, beforeStep),
    pass1After: at(`eval/pass@1${suffix}`, afterStep),
    passKBefore: k > 1 ? at(`eval/pass@${k}${suffix}`, beforeStep) : undefined,
    passKAfter: k > 1 ? at(`eval/pass@${k}${suffix}`, afterStep) : undefined,
  });
  const rows = ordered.map(({ task, difficulty }) => row(task, difficulty, `/${task}/${difficulty}`));
  if (passKeys.some(({ parsed }) => parsed!.task === undefined)) rows.push(row(OVERALL, '', ''));
  return { beforeStep, afterStep, k, rows };
}

/** The comparison as a Markdown table (rates with three decimals, changes signed, '—' where missing). */
export function comparisonMarkdown(comparison: EvalComparison): string {
  const { k } = comparison;
  const before = comparison.beforeStep === undefined ? 'before' : `step ${comparison.beforeStep}`;
  const after = comparison.afterStep === undefined ? 'after' : `step ${comparison.afterStep}`;
  const header = ['task', 'difficulty', `pass@1 ${before}`, `pass@1 ${after}`, 'change'];
  if (k > 1) header.push(`pass@${k} ${before}`, `pass@${k} ${after}`, 'change');
  const rows = comparison.rows.map((row) => {
    const cells = [
      row.task === OVERALL ? `**${OVERALL}**` : escapeCell(row.task),
      escapeCell(row.difficulty),
      rate(row.pass1Before),
      rate(row.pass1After),
      change(row.pass1Before, row.pass1After),
    ];
    if (k > 1)
      cells.push(rate(row.passKBefore), rate(row.passKAfter), change(row.passKBefore, row.passKAfter));
    return cells;
  });
  const align = header.map((_, column) => (column < 2 ? ':--' : '--:'));
  return [header, align, ...rows].map((cells) => `| ${cells.join(' | ')} |`).join('\n');
}

export function rate(value: number | undefined): string {
  return value === undefined ? '—' : value.toFixed(3);
}

function change(before: number | undefined, after: number | undefined): string {
  if (before === undefined || after === undefined) return '—';
  const difference = after - before;
  // A change that rounds to zero reads as 0.000, not -0.000 or +0.000.
  if (Math.abs(difference) < 5e-4) return '0.000';
  return `${difference > 0 ? '+' : ''}${difference.toFixed(3)}`;
}

export function escapeCell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}
