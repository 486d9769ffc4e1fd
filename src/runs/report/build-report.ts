// Builds a run report in memory: the Markdown text and one SVG per learning curve whose metrics the run
// logged and that moves (a series constant over the run is one line instead: constant-series.ts), and a
// line with the dashboard command for the same run (dashboard-link.ts). Nothing is written here (see
// write-report.ts).
import { planCharts } from './charts.ts';
import { type ChartOutcome, splitConstant } from './constant-series.ts';
import { dashboardSection } from './dashboard-link.ts';
import { compareEvals } from './eval-comparison.ts';
import {
  comparisonSection,
  configSection,
  plotsSection,
  rewardErrorsSection,
  samplesSection,
  summarySection,
} from './markdown.ts';
import { lineChart } from './plot.ts';
import { type RunData, readRunData } from './run-data.ts';
import { type RunSummary, summarizeRun } from './summary.ts';

export interface ReportOptions {
  /** Sample completions shown from the last step (default 4; 0 leaves the section out). */
  samples?: number;
  /** Prompts and completions longer than this are clipped (default 1500 characters). */
  maxSampleChars?: number;
}

export interface ReportPlot {
  /** File name inside report/, e.g. reward.svg. */
  file: string;
  svg: string;
}

export interface Report {
  markdown: string;
  plots: ReportPlot[];
  summary: RunSummary;
}

export async function buildReport(runDir: string, options: ReportOptions = {}): Promise<Report> {
  return buildReportFromData(readRunData(runDir), options);
}

export async function buildReportFromData(run: RunData, options: ReportOptions = {}): Promise<Report> {
  const charts = planCharts(run.keys)
    .map((plan) => splitConstant(plan, run.series))
    .filter((chart) => chart.drawn.length + chart.constant.length > 0);
  const plots: ReportPlot[] = [];
  // A chart whose every series is constant is said in lines, not drawn (constant-series.ts).
  for (const chart of charts) {
    if (chart.drawn.length > 0) plots.push({ file: chart.plan.file, svg: await drawChart(run, chart) });
  }
  const summary = summarizeRun(run, compareEvals(run));
  const markdown = [
    `# Run report: ${run.name}`,
    `\`${run.dir}\``,
    dashboardSection(run.dir),
    configSection(run.config),
    summarySection(summary),
    comparisonSection(summary),
    rewardErrorsSection(run.rewardErrors),
    plotsSection(charts),
    (options.samples ?? 4) > 0
      ? samplesSection(run.lastStep, run.samples, {
          count: options.samples ?? 4,
          maxChars: options.maxSampleChars ?? 1500,
        })
      : '',
  ]
    .filter((section) => section !== '')
    .join('\n\n');
  return { markdown: `${markdown}\n`, plots, summary };
}

function drawChart(run: RunData, { plan, drawn }: ChartOutcome): Promise<string> {
  return lineChart({
    title: plan.title,
    yLabel: plan.yLabel,
    yDomain: plan.yDomain,
    yZero: plan.yZero,
    panels: plan.panels,
    series: drawn.map((series) => ({ name: series.name, points: run.series.get(series.key)! })),
  });
}
