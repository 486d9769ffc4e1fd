// Run reports: runs/<name>/report/report.md with SVG learning curves (`curricula report <runDir>`).
export {
  buildReport,
  buildReportFromData,
  type Report,
  type ReportOptions,
  type ReportPlot,
} from './build-report.ts';
export { type ChartPlan, planCharts } from './charts.ts';
export { type ComparisonRow, compareEvals, type EvalComparison } from './eval-comparison.ts';
export { type ChartSeries, type LineChartOptions, lineChart } from './plot.ts';
export { type RunData, readRunData } from './run-data.ts';
export type { RunKind, RunSummary } from './summary.ts';
export { REPORT_DIR, REPORT_FILE, type WrittenReport, writeReport } from './write-report.ts';
