// Writes runs/<name>/report/{report.md, *.svg}. The report is assembled in a staging directory next to it
// (every file written with writeFileAtomic) and swapped in by renames, so a reader — or a crash at any
// moment — sees either the previous complete report or the new complete one, never a mix or a
// half-written file. (Between the two renames of the swap there is an instant with no report/ at all;
// the previous one then still sits in .report-old-<pid>-<time>-<n>/ and is removed by the next write.)
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fsyncDirectory, writeFileAtomic } from '../../core/durable-files.ts';
import { processAlive } from '../../core/process-alive.ts';
import { buildReport, type ReportOptions } from './build-report.ts';
import type { RunSummary } from './summary.ts';

export interface WrittenReport {
  /** runs/<name>/report */
  reportDir: string;
  /** runs/<name>/report/report.md */
  reportPath: string;
  /** Absolute paths of the SVG files. */
  plots: string[];
  markdown: string;
  summary: RunSummary;
}

export const REPORT_DIR = 'report';
export const REPORT_FILE = 'report.md';

export async function writeReport(runDir: string, options: ReportOptions = {}): Promise<WrittenReport> {
  const report = await buildReport(runDir, options);
  const dir = report.summary.dir;
  removeAbandoned(dir);
  const stamp = `${process.pid}-${Date.now()}`;
  const staging = join(dir, `.report-staging-${stamp}`);
  mkdirSync(staging);
  try {
    for (const plot of report.plots) writeFileAtomic(join(staging, plot.file), plot.svg);
    writeFileAtomic(join(staging, REPORT_FILE), report.markdown);
    swapInto(staging, join(dir, REPORT_DIR), join(dir, `.report-old-${stamp}`));
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  fsyncDirectory(dir);
  const reportDir = join(dir, REPORT_DIR);
  return {
    reportDir,
    reportPath: join(reportDir, REPORT_FILE),
    plots: report.plots.map((plot) => join(reportDir, plot.file)),
    markdown: report.markdown,
    summary: report.summary,
  };
}

/** Moves staging to target, replacing a previous target (two renames; see the file comment). */
function swapInto(staging: string, target: string, old: string): void {
  // Another process may be swapping in its own report at the same moment; the renames then fail with
  // ENOENT/ENOTEMPTY and a retry settles it (the last writer wins).
  const olds: string[] = [];
  for (let attempt = 0; ; attempt++) {
    try {
      if (existsSync(target)) {
        olds.push(`${old}-${attempt}`);
        renameSync(target, olds[olds.length - 1]);
      }
      renameSync(staging, target);
      break;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (attempt < 5 && ['ENOENT', 'ENOTEMPTY', 'EEXIST'].includes(code ?? '')) continue;
      // Put the previous report back rather than leave none.
      const previous = olds.at(-1);
      if (previous && existsSync(previous) && !existsSync(target)) renameSync(previous, target);
      throw error;
    }
  }
  for (const path of olds) rmSync(path, { recursive: true, force: true });
}

/** Staging or old directories left by a writer that is no longer running (a crash mid-write). */
function removeAbandoned(dir: string): void {
  for (const name of readdirSync(dir)) {
    const match = /^\.report-(?:staging|old)-(\d+)-\d+(?:-\d+)?$/.exec(name);
    if (match && !otherWriterAlive(Number(match[1])))
      rmSync(join(dir, name), { recursive: true, force: true });
  }
}

/** Staging of a live report writer; this process's own are from an earlier, failed call. */
function otherWriterAlive(pid: number): boolean {
  return pid !== process.pid && processAlive(pid);
}
