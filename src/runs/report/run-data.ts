// Everything a report needs from a run directory, read once through RunStore.read (read-only, no lock,
// so a report can be drawn while the run is still training). The report builders are pure functions of
// this snapshot.
import { existsSync } from 'node:fs';
import { basename, join } from 'node:path';
import { type RunEvent, RunStore, readJsonlLines, type SampleRecord } from '../run-store.ts';

export type Point = [step: number, value: number];

export type { RunEvent } from '../run-store.ts';

export interface RunData {
  name: string;
  dir: string;
  config: unknown;
  keys: string[];
  /** key → [step, value] by step; steps whose value was not finite (stored as NULL) are left out. */
  series: Map<string, Point[]>;
  lastStep: number | null;
  /** Samples logged at lastStep (the trainer logs a bounded sample of completions each step). */
  samples: (SampleRecord & { step: number })[];
  /** created / resumed / truncated / finished …, oldest first. */
  events: RunEvent[];
  /** step → ISO time of its metrics.jsonl line (the last line when a step was replayed). */
  stepTimes: Map<number, string>;
  /** Completions that failed to grade: count per step and distinct reason (RL runs). */
  rewardErrors: { step: number; reason: string; count: number }[];
}

export function readRunData(runDir: string): RunData {
  const store = RunStore.read(runDir);
  try {
    const keys = store.keys();
    const series = new Map<string, Point[]>();
    for (const key of keys) {
      series.set(
        key,
        store
          .series(key)
          .filter((row) => row.value !== null && Number.isFinite(row.value))
          .map((row): Point => [row.step, row.value]),
      );
    }
    const lastStep = store.lastStep();
    return {
      name: basename(store.dir),
      dir: store.dir,
      config: store.config(),
      keys,
      series,
      lastStep,
      samples: lastStep === null ? [] : store.samples(lastStep),
      events: store.events(),
      stepTimes: readStepTimes(store.dir),
      rewardErrors: store.rewardErrors(),
    };
  } finally {
    store.close();
  }
}

function readStepTimes(dir: string): Map<number, string> {
  const times = new Map<number, string>();
  const path = join(dir, 'metrics.jsonl');
  if (!existsSync(path)) return times;
  for (const entry of readJsonlLines(path)) {
    const { step, time } = entry as { step?: unknown; time?: unknown };
    if (typeof step === 'number' && typeof time === 'string') times.set(step, time);
  }
  return times;
}

/** The value of a series at a step, if logged. */
export function valueAt(points: readonly Point[] | undefined, step: number): number | undefined {
  return points?.find(([s]) => s === step)?.[1];
}

/** The last logged point of a series. */
export function lastPoint(points: readonly Point[] | undefined): Point | undefined {
  return points && points.length > 0 ? points[points.length - 1] : undefined;
}
