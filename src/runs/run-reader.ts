// Reading a run from a script or a notebook (`openRun` in the public API, src/api/runs.ts): its config,
// metrics (all, by key, since a step), samples (by step, problem or any filter), checkpoints and events.
// Read-only: it opens the store through RunStore.read (read-only SQLite, never the run's lock), so it is
// safe beside the training process that is writing the run (SQLite in WAL mode lets readers see each
// committed step). Samples come from RunStore.samples (the store's own row reader: columns by name, so a
// store with more or fewer sample columns reads as it is), step by step, then filtered here.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { UserError } from '../core/errors.ts';
import { isRunDirectory, type MetricRow, type RunEvent, RunStore, type SampleRecord } from './run-store.ts';

export type { MetricRow, RunEvent } from './run-store.ts';

/** Which metric rows to read. */
export interface MetricQuery {
  /** One key (e.g. 'reward/mean'), or several. Absent = every key. */
  key?: string | readonly string[];
  /** Only steps ≥ since. */
  since?: number;
}

/** One stored completion (RunStore's SampleRecord: problem, prompt, completion, reward, reason, and the
 * details a run stored) with its step. */
export type RunSample = SampleRecord & { step: number };

/** Which samples to read. */
export interface SampleQuery {
  /** One step. */
  step?: number;
  /** Only steps ≥ since. */
  since?: number;
  problemId?: string;
  /** Any condition on a sample (applied after the others). */
  where?: (sample: RunSample) => boolean;
  /** At most this many (after `where`), in logging order. */
  limit?: number;
}

/** One checkpoint directory of the run. */
export interface RunCheckpoint {
  name: string;
  step: number;
  /** The checkpoint directory (model/ and trainer.json inside). */
  path: string;
  /** The model directory: what `init.checkpoint` or `evaluate({checkpoint})` takes. */
  modelPath: string;
  latest: boolean;
  best: boolean;
  /** Kept permanently (checkpoint.every). */
  kept: boolean;
}

/** A run opened for reading; call close() when done. */
export interface RunReader {
  /** The absolute run directory. */
  readonly dir: string;
  /** The resolved config the run was started with (as stored in config.json). */
  config<T = Record<string, unknown>>(): T;
  /** Metric rows ordered by step, then key. */
  metrics(query?: MetricQuery): MetricRow[];
  /** Every metric key that was logged. */
  metricKeys(): string[];
  /** The last step that logged metrics (null: none yet). */
  lastStep(): number | null;
  /** Stored completions in logging order. */
  samples(query?: SampleQuery): RunSample[];
  /** The steps that stored samples. */
  sampleSteps(): number[];
  /** Checkpoints on disk, by step. */
  checkpoints(): RunCheckpoint[];
  /** Run events (created, resumed, advice, cancelled, finished …) in order. */
  events(): RunEvent[];
  /** Every distinct reason a completion failed to grade, counted per step. */
  rewardErrors(): { step: number; reason: string; count: number }[];
  /** Releases the database handle. */
  close(): void;
}

/** Opens a run directory for reading, without its lock (safe while a run writes it). */
export function openRun(dir: string): RunReader {
  const runDir = resolve(dir);
  if (!existsSync(runDir)) throw new UserError(`run directory ${runDir} does not exist`);
  if (!isRunDirectory(runDir)) {
    throw new UserError(`${runDir} is not a run directory (it lacks config.json or run.sqlite)`);
  }
  const store = RunStore.read(runDir);
  return {
    dir: runDir,
    config: <T>() => store.config<T>(),
    metrics(query = {}) {
      const keys =
        query.key === undefined ? store.keys() : typeof query.key === 'string' ? [query.key] : query.key;
      const since = query.since ?? Number.NEGATIVE_INFINITY;
      const rows = keys.flatMap((key) =>
        Number.isFinite(since) ? store.seriesAfter(key, Math.ceil(since) - 1) : store.series(key),
      );
      return rows.sort((a, b) => a.step - b.step || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    },
    metricKeys: () => store.keys(),
    lastStep: () => store.lastStep(),
    samples(query = {}) {
      const steps = store
        .sampleSteps()
        .filter(
          (step) => (query.step === undefined || step === query.step) && step >= (query.since ?? -Infinity),
        );
      const samples: RunSample[] = [];
      for (const step of steps) {
        for (const sample of store.samples(step)) {
          if (query.problemId !== undefined && sample.problemId !== query.problemId) continue;
          if (query.where && !query.where(sample)) continue;
          samples.push(sample);
          if (query.limit !== undefined && samples.length >= query.limit) return samples;
        }
      }
      return samples;
    },
    sampleSteps: () => store.sampleSteps(),
    checkpoints: () => listCheckpoints(store.checkpointsDir),
    events: () => store.events(),
    rewardErrors: () => store.rewardErrors(),
    close() {
      store.close();
    },
  };
}

const CHECKPOINT_NAME = /^step-(\d+)$/;

function listCheckpoints(checkpointsDir: string): RunCheckpoint[] {
  if (!existsSync(checkpointsDir)) return [];
  const pointer = (name: string) => {
    const path = join(checkpointsDir, name);
    return existsSync(path) ? readFileSync(path, 'utf8').trim() : null;
  };
  const latest = pointer('LATEST');
  const best = pointer('BEST');
  return readdirSync(checkpointsDir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && CHECKPOINT_NAME.test(entry.name))
    .filter((entry) => existsSync(join(checkpointsDir, entry.name, 'trainer.json')))
    .map((entry) => {
      const path = join(checkpointsDir, entry.name);
      return {
        name: entry.name,
        step: Number(CHECKPOINT_NAME.exec(entry.name)![1]),
        path,
        modelPath: join(path, 'model'),
        latest: entry.name === latest,
        best: entry.name === best,
        kept: existsSync(join(path, 'KEEP')),
      };
    })
    .sort((a, b) => a.step - b.step);
}
