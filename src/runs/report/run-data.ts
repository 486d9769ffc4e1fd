// Everything a report needs from a run directory, read once through RunStore.read (read-only, no lock,
// so a report can be drawn while the run is still training). The report builders are pure functions of
// this snapshot.
import { existsSync } from 'node:fs';
import { basename, join } from 'node:path';
import Database from 'better-sqlite3';
import { RunStore, readJsonlLines, type SampleRecord } from '../run-store.ts';

export type Point = [step: number, value: number];

export interface RunEvent {
  /** ISO time. */
  time: string;
  kind: string;
  detail: unknown;
}

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
      events: readEvents(store.dir),
      stepTimes: readStepTimes(store.dir),
    };
  } finally {
    store.close();
  }
}

/**
 * The events table of run.sqlite. RunStore writes events but has no reader for them yet, so this opens
 * the database a second time, read-only, with the column names RunStore creates.
 */
function readEvents(dir: string): RunEvent[] {
  const db = new Database(join(dir, 'run.sqlite'), { readonly: true, fileMustExist: true });
  try {
    const table = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'events'").get();
    if (!table) return [];
    const rows = db.prepare('SELECT time, kind, detail FROM events ORDER BY rowid').all() as {
      time: string;
      kind: string;
      detail: string | null;
    }[];
    return rows.map((row) => ({ time: row.time, kind: row.kind, detail: parseDetail(row.detail) }));
  } finally {
    db.close();
  }
}

function parseDetail(detail: string | null): unknown {
  if (detail === null) return null;
  try {
    return JSON.parse(detail);
  } catch {
    return detail;
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
