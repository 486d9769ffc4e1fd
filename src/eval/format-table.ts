// Renders an evaluation summary as a plain-text table: one row per task and difficulty.
import type { EvalSummary } from './aggregate.ts';
import type { ToolUse } from './tool-use.ts';

export function formatEvalTable(summary: EvalSummary): string {
  const ks = Object.keys(summary.overall.passAt)
    .map(Number)
    .sort((a, b) => a - b);
  const majKs = ks.filter((k) => k > 1);
  // In an environment: tool calls per sample, the share of samples calling, pass@1 of those, errors.
  const withTools = summary.overall.tools !== undefined;
  const header = [
    'task',
    'difficulty',
    'problems',
    ...ks.map((k) => `pass@${k}`),
    ...majKs.map((k) => `maj@${k}`),
    ...(withTools ? ['calls/sample', 'call rate', 'pass@1 calling', 'errors'] : []),
  ];
  const toolCells = (tools: ToolUse | undefined) =>
    withTools && tools
      ? [
          tools.callsPerSample.toFixed(2),
          formatRate(tools.callRate),
          tools.passAt1WithCall === null ? '-' : formatRate(tools.passAt1WithCall),
          String(tools.errors.parse + tools.errors.tool + tools.errors.environment),
        ]
      : [];
  const rows = summary.groups.map((group) => [
    group.task,
    group.difficulty === undefined ? '-' : String(group.difficulty),
    String(group.problems),
    ...ks.map((k) => formatRate(group.passAt[k])),
    ...majKs.map((k) => formatRate(group.majAt[k])),
    ...toolCells(group.tools),
  ]);
  rows.push([
    'all',
    '',
    String(summary.overall.problems),
    ...ks.map((k) => formatRate(summary.overall.passAt[k])),
    ...majKs.map((k) => formatRate(summary.overall.majAt[k])),
    ...toolCells(summary.overall.tools),
  ]);
  const lines = [renderTable(header, rows)];
  const { calibration, consistency } = summary;
  if (consistency) {
    lines.push(
      `agreement calibration over ${consistency.problems} problems (majority share as confidence): Brier ${consistency.brier.toFixed(3)}, ECE ${consistency.ece.toFixed(3)}, mean confidence ${consistency.confidence.toFixed(3)}, confident wrong ${consistency.confidentWrong.toFixed(3)}`,
    );
  }
  if (calibration) {
    lines.push(
      `calibration over ${calibration.stated} of ${calibration.completions} completions stating a confidence: Brier ${calibration.brier.toFixed(3)}, ECE ${calibration.ece.toFixed(3)}, AUROC ${Number.isFinite(calibration.auroc) ? calibration.auroc.toFixed(3) : '–'}, mean confidence ${calibration.meanConfidence.toFixed(3)} vs accuracy ${calibration.accuracy.toFixed(3)}`,
    );
  }
  return lines.join('\n');
}

/** Left-aligned text columns, right-aligned numbers, two spaces apart. */
export function renderTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => row[column].length)),
  );
  const numeric = header.map((_, column) =>
    rows.every((row) => row[column] === '' || /^[-\d.%±]+$/.test(row[column])),
  );
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, column) => (numeric[column] ? cell.padStart(widths[column]) : cell.padEnd(widths[column])))
      .join('  ')
      .trimEnd();
  return [line(header), line(widths.map((width) => '-'.repeat(width))), ...rows.map(line)].join('\n');
}

function formatRate(value: number | undefined): string {
  return value === undefined ? '' : value.toFixed(3);
}
