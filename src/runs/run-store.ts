// The run store: everything a run leaves behind, in runs/<name>/.
//
//   config.json          resolved config (written at creation; rewritten when a resume changes train.steps)
//   metrics.jsonl        append-only {step, time, metrics} lines anyone can read
//   run.sqlite           metrics(step, key, value), samples(step, …; columns in sample-columns.ts), events,
//                        reward_errors(step, reason, count): every distinct reason a completion failed to
//                        grade, counted; WAL mode. A writer adds sample columns a run predates (migration);
//                        a reader reads the columns there are.
//   checkpoints/         step-000100/ …, LATEST and BEST pointer files (see checkpoints.ts)
//   lock.sqlite          exclusive writer lock, an OS lock held through SQLite (lock.ts)
//   lock-owner.json      {pid, host, since} of the holder, for the refusal message
//
// Names and deletion: a run name is letters, digits, `_`, `-` and `.`, not starting with a dot (so never
// `.` or `..`), and the run directory lies directly inside the runs directory. `--overwrite` replaces only
// a directory that is a run (config.json + run.sqlite), not in use, and not holding the working
// directory; it is first renamed aside (so the name is free at once) and then removed.
//
// Crash safety: on resume the trainer restores the latest checkpoint at step s and calls
// truncateAfter(s), which deletes every metric, sample, reward error and JSONL line of steps > s, so steps
// replayed after the checkpoint are neither lost nor duplicated.
import { appendFileSync, existsSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type Database from 'better-sqlite3';
import { writeFileAtomic } from '../core/durable-files.ts';
import { UserError } from '../core/errors.ts';
import { shortInput } from '../core/quote-input.ts';
import { acquireRunLock, type RunLock } from './lock.ts';
import { type OpenMode, openRunDatabase } from './run-database.ts';
import { checkRunName, checkRunsDirectory } from './run-name.ts';
import { removingPath, stageRunDirectory } from './run-staging.ts';
import {
  describeJsonError,
  isSameOrInside,
  parseDetail,
  readJsonlLines,
  repairJsonl,
  unreadableStore,
} from './run-store-files.ts';
import { prepareSampleInsert, prepareSampleSelect, type SampleRecord, sampleRow } from './sample-columns.ts';

export type { OpenMode } from './run-database.ts';
export { readJsonlLines } from './run-store-files.ts';
export type {
  GuidanceText,
  SampleEpisode,
  SampleEpisodeTurn,
  SampleGuidance,
  SampleRecord,
} from './sample-columns.ts';

/** One logged metric value: step, key (e.g. 'reward/mean') and value. */
export interface MetricRow {
  step: number;
  key: string;
  value: number;
}

/** One run event (created, resumed, advice, cancelled, finished …) with its time and detail. */
export interface RunEvent {
  /** ISO time. */
  time: string;
  /** created / resumed / truncated / finished / repaired-jsonl … */
  kind: string;
  detail: unknown;
}

export interface CreateOptions {
  /** Replace an existing run of the same name (only a run, and only when no process is writing it). */
  overwrite?: boolean;
  /** Told what is about to be removed when an existing run is replaced. */
  onOverwrite?: (message: string) => void;
}

/** A Curricula run directory: it holds config.json and run.sqlite. */
export function isRunDirectory(dir: string): boolean {
  return existsSync(join(dir, 'config.json')) && existsSync(join(dir, 'run.sqlite'));
}

export class RunStore {
  private readonly db: Database.Database;
  private readonly lock: RunLock | null;
  private readonly insertMetric: Database.Statement;
  /** Prepared on first use: a read-only store of an old run lacks the columns it names. */
  private insertSample: Database.Statement | null = null;
  private readonly selectSamples: (step: number) => (SampleRecord & { step: number })[];

  private constructor(
    readonly dir: string,
    mode: OpenMode,
  ) {
    this.lock = mode === 'read' ? null : acquireRunLock(dir);
    try {
      this.db = openRunDatabase(join(dir, 'run.sqlite'), mode);
      this.insertMetric = this.db.prepare(
        'INSERT OR REPLACE INTO metrics (step, key, value) VALUES (?, ?, ?)',
      );
      this.selectSamples = prepareSampleSelect(this.db);
    } catch (error) {
      this.lock?.release();
      throw unreadableStore(join(dir, 'run.sqlite'), error);
    }
  }

  /**
   * Creates runs/<name>/ with its resolved config. The directory is built under a temporary name and
   * renamed into place, so a failure leaves nothing half-written. The last part of `dir` must be a valid
   * run name (see checkRunName); callers that build `dir` from a runs directory and a name use
   * runDirectory.
   */
  static create(dir: string, config: unknown, options: CreateOptions = {}): RunStore {
    // Checked before resolving: resolve('runs/..') would quietly become the parent of runs/.
    checkRunName(
      dir
        .split(/[\\/]+/)
        .filter((part) => part !== '')
        .at(-1) ?? '',
    );
    dir = resolve(dir);
    checkRunsDirectory(dirname(dir));
    if (existsSync(dir)) {
      if (!options.overwrite) {
        throw new UserError(
          `run directory ${dir} already exists; resume it with --resume ${dir}, or choose another name`,
        );
      }
      RunStore.removeForOverwrite(dir, options.onOverwrite);
    }
    stageRunDirectory(dir, config);
    const store = new RunStore(dir, 'create');
    store.event('created', {});
    return store;
  }

  /**
   * Removes an existing run for --overwrite: refused unless `dir` is a run, no process is writing it, and
   * the working directory is not inside it. The run is renamed aside while its lock is held (so no
   * process can start writing it meanwhile), then removed.
   */
  private static removeForOverwrite(dir: string, onOverwrite?: (message: string) => void): void {
    if (!isRunDirectory(dir)) {
      throw new UserError(
        `${dir} exists and is not a Curricula run (no config.json / run.sqlite); --overwrite replaces only runs: move it away or choose another name`,
      );
    }
    if (isSameOrInside(process.cwd(), dir)) {
      throw new UserError(`refusing to overwrite ${dir}: the working directory is inside it`);
    }
    const lock = acquireRunLock(dir); // refuses a run that is being written
    const aside = removingPath(dir);
    try {
      onOverwrite?.(`overwriting run ${dir} (${describeRun(dir)}): removing it`);
      renameSync(dir, aside);
    } finally {
      lock.release();
    }
    rmSync(aside, { recursive: true, force: true });
  }

  /** Opens an existing run for writing (resume). Refused while another process holds it. */
  static resume(dir: string): RunStore {
    dir = resolve(dir);
    RunStore.assertRun(dir);
    const store = new RunStore(dir, 'resume');
    const droppedBytes = repairJsonl(join(dir, 'metrics.jsonl'));
    if (droppedBytes !== null) store.event('repaired-jsonl', { droppedBytes });
    return store;
  }

  /** Opens an existing run read-only (reports, dashboards); takes no lock. */
  static read(dir: string): RunStore {
    dir = resolve(dir);
    RunStore.assertRun(dir);
    return new RunStore(dir, 'read');
  }

  /** The stored config of the run in `dir`, read without opening the run (no lock, no repair). */
  static readConfig(dir: string): unknown {
    dir = resolve(dir);
    RunStore.assertRun(dir);
    const path = join(dir, 'config.json');
    try {
      return JSON.parse(readFileSync(path, 'utf8'));
    } catch (error) {
      throw new UserError(`${path} cannot be read as JSON (${describeError(error)}); is the run intact?`);
    }
  }

  private static assertRun(dir: string): void {
    if (!isRunDirectory(dir)) {
      throw new UserError(`${shortInput(dir)} is not a run directory (no config.json / run.sqlite)`);
    }
  }

  config<T = unknown>(): T {
    const path = join(this.dir, 'config.json');
    try {
      return JSON.parse(readFileSync(path, 'utf8')) as T;
    } catch (error) {
      throw new UserError(
        `run config ${path} cannot be read: ${describeError(error)}; restore it from a backup, or start a new run`,
      );
    }
  }

  /** Replaces the stored config (a resume that changes train.steps); records a `config-changed` event. */
  updateConfig(config: unknown, detail: unknown): void {
    writeFileAtomic(join(this.dir, 'config.json'), `${JSON.stringify(config, null, 2)}\n`);
    this.event('config-changed', detail);
  }

  get checkpointsDir(): string {
    return join(this.dir, 'checkpoints');
  }

  /** Records the metrics of one step in SQLite and appends one JSONL line. */
  logMetrics(step: number, metrics: Record<string, number>): void {
    const finite = Object.entries(metrics).filter(([, value]) => typeof value === 'number');
    this.db.transaction(() => {
      for (const [key, value] of finite)
        this.insertMetric.run(step, key, Number.isFinite(value) ? value : null);
    })();
    const line = JSON.stringify({ step, time: new Date().toISOString(), ...Object.fromEntries(finite) });
    appendFileSync(join(this.dir, 'metrics.jsonl'), `${line}\n`);
  }

  /** Records a bounded sample of completions for one step, with their details (sample-columns.ts). */
  logSamples(step: number, samples: readonly SampleRecord[]): void {
    this.insertSample ??= prepareSampleInsert(this.db);
    const insert = this.insertSample;
    this.db.transaction(() => {
      for (const sample of samples) insert.run(...sampleRow(step, sample));
    })();
  }

  /** Records how many completions of one step failed to grade, per distinct reason (every reason kept). */
  logRewardErrors(step: number, counts: Readonly<Record<string, number>>): void {
    const entries = Object.entries(counts);
    if (entries.length === 0) return;
    const insert = this.db.prepare(
      'INSERT OR REPLACE INTO reward_errors (step, reason, count) VALUES (?, ?, ?)',
    );
    this.db.transaction(() => {
      for (const [reason, count] of entries) insert.run(step, reason, count);
    })();
  }

  /** Every recorded reward error count, by step then reason ([] for runs made before the table existed). */
  rewardErrors(): { step: number; reason: string; count: number }[] {
    const table = this.db
      .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'reward_errors'")
      .get();
    if (!table) return [];
    return this.db.prepare('SELECT step, reason, count FROM reward_errors ORDER BY step, reason').all() as {
      step: number;
      reason: string;
      count: number;
    }[];
  }

  event(kind: string, detail: unknown): void {
    this.db
      .prepare('INSERT INTO events (time, kind, detail) VALUES (?, ?, ?)')
      .run(new Date().toISOString(), kind, JSON.stringify(detail));
  }

  /** Every event, oldest first. */
  events(): RunEvent[] {
    const rows = this.db.prepare('SELECT time, kind, detail FROM events ORDER BY rowid').all() as {
      time: string;
      kind: string;
      detail: string | null;
    }[];
    return rows.map((row) => ({ time: row.time, kind: row.kind, detail: parseDetail(row.detail) }));
  }

  /** All rows of one metric key, by step. */
  series(key: string): MetricRow[] {
    return this.db
      .prepare('SELECT step, key, value FROM metrics WHERE key = ? ORDER BY step')
      .all(key) as MetricRow[];
  }

  /** Every metric key that was logged. */
  keys(): string[] {
    return (this.db.prepare('SELECT DISTINCT key FROM metrics ORDER BY key').all() as { key: string }[]).map(
      (row) => row.key,
    );
  }

  /** The samples of one step in logging order; details absent where the run did not store them. */
  samples(step: number): (SampleRecord & { step: number })[] {
    return this.selectSamples(step);
  }

  /** Rows of one metric key after `step` (live polling: only the new steps). */
  seriesAfter(key: string, step: number): MetricRow[] {
    return this.db
      .prepare('SELECT step, key, value FROM metrics WHERE key = ? AND step > ? ORDER BY step')
      .all(key, step) as MetricRow[];
  }

  /** How many distinct steps logged metrics. */
  stepCount(): number {
    return (this.db.prepare('SELECT COUNT(DISTINCT step) AS n FROM metrics').get() as { n: number }).n;
  }

  /** The steps that logged samples, in order. */
  sampleSteps(): number[] {
    return (
      this.db.prepare('SELECT DISTINCT step FROM samples ORDER BY step').all() as { step: number }[]
    ).map((row) => row.step);
  }

  lastStep(): number | null {
    const row = this.db.prepare('SELECT MAX(step) AS step FROM metrics').get() as { step: number | null };
    return row.step;
  }

  /**
   * Forgets everything logged for steps after `step` (used on resume from a checkpoint at `step`) and
   * returns those steps (in SQLite or JSONL), which the resumed run replays; the 'truncated' event lists them.
   */
  truncateAfter(step: number): number[] {
    const dropped = new Set<number>();
    for (const row of this.db.prepare('SELECT DISTINCT step FROM metrics WHERE step > ?').all(step) as {
      step: number;
    }[])
      dropped.add(row.step);
    this.db.transaction(() => {
      this.db.prepare('DELETE FROM metrics WHERE step > ?').run(step);
      this.db.prepare('DELETE FROM samples WHERE step > ?').run(step);
      this.db.prepare('DELETE FROM reward_errors WHERE step > ?').run(step);
    })();
    const path = join(this.dir, 'metrics.jsonl');
    const entries = readJsonlLines(path) as { step: number }[];
    for (const entry of entries) if (entry.step > step) dropped.add(entry.step);
    const kept = entries.filter((entry) => entry.step <= step);
    writeFileAtomic(path, kept.map((entry) => `${JSON.stringify(entry)}\n`).join(''));
    const droppedSteps = [...dropped].sort((a, b) => a - b);
    this.event('truncated', { after: step, droppedSteps });
    return droppedSteps;
  }

  close(): void {
    this.db.close();
    this.lock?.release();
  }
}

/** A config.json that cannot be read or parsed, said without quoting its content. */
function describeError(error: unknown): string {
  // A read error's message names the path and the errno, never the content; a parse error's would quote it.
  return error instanceof SyntaxError ? describeJsonError(error) : (error as Error).message;
}

/** "created <time>, last logged step N, K checkpoints" for the overwrite message (best effort). */
function describeRun(dir: string): string {
  const parts: string[] = [];
  try {
    const store = RunStore.read(dir);
    try {
      const created = store.events().find((event) => event.kind === 'created');
      if (created) parts.push(`created ${created.time}`);
      parts.push(`last logged step ${store.lastStep() ?? 'none'}`);
    } finally {
      store.close();
    }
  } catch {
    parts.push('its database cannot be read');
  }
  const checkpointsDir = join(dir, 'checkpoints');
  const checkpoints = existsSync(checkpointsDir)
    ? readdirSync(checkpointsDir).filter((name) => name.startsWith('step-')).length
    : 0;
  parts.push(`${checkpoints} checkpoint${checkpoints === 1 ? '' : 's'}`);
  return parts.join(', ');
}
