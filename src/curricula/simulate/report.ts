// Text table and SVG chart of a simulation result (used by `curricula simulate` and docs/simulate.md).
import { lineChartSvg } from './plot-svg.ts';
import type { SelectorResult, SimulationResult } from './simulate.ts';
import type { Interval } from './stats.ts';

const formatInterval = (interval: Interval, digits = 3) =>
  `${interval.mean.toFixed(digits)} ± ${interval.halfWidth.toFixed(digits)}`;

function formatSteps(result: SelectorResult): string {
  const reached = result.stepsToTarget.filter((value) => value !== 'never').length;
  if (result.stepsToTargetReached === null) return 'never';
  const interval = formatInterval(result.stepsToTargetReached, 0);
  return reached === result.stepsToTarget.length
    ? interval
    : `${interval} (${reached}/${result.stepsToTarget.length})`;
}

/** A Markdown-compatible table, best area under the curve first. */
export function formatSimulationTable(simulation: SimulationResult): string {
  const header = [
    'selector',
    'AUC (mean ± 95% CI)',
    'final accuracy',
    `steps to ${simulation.target}`,
    'wall s',
  ];
  const rows = [...simulation.results]
    .sort((a, b) => b.auc.mean - a.auc.mean)
    .map((result) => [
      result.label,
      formatInterval(result.auc),
      formatInterval(result.finalAccuracy),
      formatSteps(result),
      (result.wallMilliseconds / 1000).toFixed(1),
    ]);
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => row[column].length)),
  );
  const line = (cells: string[]) =>
    `| ${cells.map((cell, column) => cell.padEnd(widths[column])).join(' | ')} |`;
  return [
    line(header),
    `|${widths.map((width) => '-'.repeat(width + 2)).join('|')}|`,
    ...rows.map(line),
  ].join('\n');
}

export function simulationSvg(simulation: SimulationResult): string {
  return lineChartSvg(
    simulation.results.map((result) => ({
      label: result.label,
      values: result.curve.mean,
      low: result.curve.low,
      high: result.curve.high,
    })),
    {
      title: `Held-out accuracy, learner '${simulation.learner}', mean of ${simulation.seeds.length} seeds (95% band)`,
      xLabel: 'training step',
      yLabel: 'expected held-out accuracy',
      yMin: 0,
      yMax: 1,
      reference: simulation.target,
    },
  );
}
