// Builds a run report in memory: the Markdown text and one SVG per learning curve whose metrics the run
// logged. Nothing is written here (see write-report.ts).
import { type ChartPlan, planCharts } from './charts.ts';
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
  const plans = planCharts(run.keys).filter((plan) =>
    plan.series.some((series) => hasPoints(run, series.key)),
  );
  const plots: ReportPlot[] = [];
  for (const plan of plans) plots.push({ file: plan.file, svg: await drawChart(run, plan) });
  const summary = summarizeRun(run, compareEvals(run));
  const markdown = [
    `# Run report: ${run.name}`,
    `\`${run.dir}\``,
    configSection(run.config),
    summarySection(summary),
    comparisonSection(summary),
    rewardErrorsSection(run.rewardErrors),
    plotsSection(plans),
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

function drawChart(run: RunData, plan: ChartPlan): Promise<string> {
  return lineChart({
    title: plan.title,
    yLabel: plan.yLabel,
    yDomain: plan.yDomain,
    yZero: plan.yZero,
    panels: plan.panels,
    series: plan.series
      .filter((series) => hasPoints(run, series.key))
      .map((series) => ({ name: series.name, points: run.series.get(series.key)! })),
  });
}

/** A key whose every value was non-finite has no points and draws no line. */
function hasPoints(run: RunData, key: string): boolean {
  return (run.series.get(key)?.length ?? 0) > 0;
}
