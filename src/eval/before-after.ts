// The before/after table of an RL run: held-out pass@1 (and the largest pass@k) per task and difficulty.
import type { EvalSummary } from './aggregate.ts';
import { renderTable } from './format-table.ts';

export function formatBeforeAfter(before: EvalSummary | undefined, after: EvalSummary): string {
  const k = Math.max(1, ...Object.keys(after.overall.passAt).map(Number));
  const header = ['task', 'difficulty', 'problems', 'pass@1 before', 'pass@1 after', 'change'];
  if (k > 1) header.push(`pass@${k} before`, `pass@${k} after`);
  const rows = after.groups.map((group) => {
    const old = before?.groups.find((g) => g.task === group.task && g.difficulty === group.difficulty);
    const row = [
      group.task,
      String(group.difficulty),
      String(group.problems),
      format(old?.passAt[1]),
      format(group.passAt[1]),
      old ? signed(group.passAt[1] - old.passAt[1]) : '',
    ];
    if (k > 1) row.push(format(old?.passAt[k]), format(group.passAt[k]));
    return row;
  });
  const overall = [
    'all',
    '',
    String(after.overall.problems),
    format(before?.overall.passAt1),
    format(after.overall.passAt1),
    before ? signed(after.overall.passAt1 - before.overall.passAt1) : '',
  ];
  if (k > 1) overall.push(format(before?.overall.passAt[k]), format(after.overall.passAt[k]));
  rows.push(overall);
  return renderTable(header, rows);
}

function format(value: number | undefined): string {
  return value === undefined ? '' : value.toFixed(3);
}

function signed(value: number): string {
  return `${value >= 0 ? '+' : ''}${value.toFixed(3)}`;
}
