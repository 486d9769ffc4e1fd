// The summary of a run: what kind of run, how far it got, how long it took, and the final value of its
// headline metrics. Wall time comes from the run's events (created → finished) when it finished, else
// from created → the time of its last metrics line.
import { type EvalComparison, evalSteps } from './eval-comparison.ts';
import { lastPoint, type RunData } from './run-data.ts';

export type RunKind = 'rl' | 'pretrain' | 'unknown';

export interface RunSummary {
  run: string;
  dir: string;
  kind: RunKind;
  /** Last logged step (0 when only the initial evaluation was logged; null when nothing was). */
  lastStep: number | null;
  /** config.train.steps when the config has it. */
  configuredSteps?: number;
  finished: boolean;
  resumes: number;
  startedAt?: string;
  endedAt?: string;
  wallSeconds?: number;
  /** Sum of perf/step_seconds: time spent inside training steps. */
  stepSeconds?: number;
  evalSteps: number[];
  /** Headline metrics: last logged value and its step. */
  final: Record<string, { step: number; value: number }>;
  comparison: EvalComparison | null;
}

/** Headline metrics shown in the summary, in this order, when the run logged them. */
const HEADLINE = [
  'reward/mean',
  'eval/pass@1',
  'train/loss',
  'entropy',
  'response/length_mean',
  'losses/approx_kl',
  'losses/kl',
  'sampling/filtered_frac',
  'curriculum/target_difficulty',
];

export function summarizeRun(run: RunData, comparison: EvalComparison | null): RunSummary {
  const has = (key: string) => run.series.has(key);
  const kind: RunKind = has('reward/mean') ? 'rl' : has('train/loss') ? 'pretrain' : 'unknown';
  const created = run.events.find((event) => event.kind === 'created');
  const finished = [...run.events].reverse().find((event) => event.kind === 'finished');
  const lastLine = run.lastStep === null ? undefined : run.stepTimes.get(run.lastStep);
  const startedAt = created?.time;
  const endedAt = finished?.time ?? lastLine;
  const wallSeconds = startedAt && endedAt ? (Date.parse(endedAt) - Date.parse(startedAt)) / 1000 : undefined;
  const stepTimes = run.series.get('perf/step_seconds');

  const headline = [...HEADLINE];
  if (comparison && comparison.k > 1) headline.splice(2, 0, `eval/pass@${comparison.k}`);
  const final: RunSummary['final'] = {};
  for (const key of headline) {
    const point = lastPoint(run.series.get(key));
    if (point) final[key] = { step: point[0], value: point[1] };
  }
  const configuredSteps = (run.config as { train?: { steps?: unknown } } | null)?.train?.steps;
  return {
    run: run.name,
    dir: run.dir,
    kind,
    lastStep: run.lastStep,
    ...(typeof configuredSteps === 'number' ? { configuredSteps } : {}),
    finished: finished !== undefined,
    resumes: run.events.filter((event) => event.kind === 'resumed').length,
    ...(startedAt ? { startedAt } : {}),
    ...(endedAt ? { endedAt } : {}),
    ...(wallSeconds !== undefined && Number.isFinite(wallSeconds) ? { wallSeconds } : {}),
    ...(stepTimes && stepTimes.length > 0
      ? { stepSeconds: stepTimes.reduce((sum, [, seconds]) => sum + seconds, 0) }
      : {}),
    evalSteps: evalSteps(run),
    final,
    comparison,
  };
}

/** 3725.4 → '1h 2m 5s'; 42.31 → '42.3s'. */
export function formatDuration(seconds: number): string {
  if (seconds < 60) return `${seconds.toFixed(1)}s`;
  const total = Math.round(seconds);
  const hours = Math.floor(total / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const rest = total % 60;
  return hours > 0 ? `${hours}h ${minutes}m ${rest}s` : `${minutes}m ${rest}s`;
}
