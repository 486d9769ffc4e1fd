// The runs table: one row per directory in the runs directory. A run directory (config.json + run.sqlite)
// is read through RunStore.read (read-only SQLite, no lock) and summarised; a directory that is not a run,
// or whose store or config cannot be read, is listed as `unreadable` with the reason, never an error of
// the whole list. Files and hidden entries (`.name`, the staging/removal leftovers of run-staging.ts) are
// skipped; so are the per-run `compare/` outputs of `curricula compare` (no config.json, no run.sqlite).
import { closeSync, existsSync, fstatSync, openSync, readdirSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { isRunDirectory, RunStore } from '../runs/run-store.ts';
import { resolveRunDir } from './run-path.ts';
import { type RunStatus, runStatus } from './run-status.ts';

export interface RunSummary {
  name: string;
  status: RunStatus;
  /** ISO time of the `created` event. */
  startTime: string | null;
  /** Seconds from the start to the last logged step (or the last event). */
  wallSeconds: number | null;
  lastStep: number | null;
  /** Distinct steps with metrics. */
  steps: number;
  /** Sum of losses/tokens (tokens trained on) over the steps. */
  tokens: number | null;
  /** A few config keys that tell runs apart (selector, algorithm, seed, steps, model). */
  config: Record<string, unknown>;
}

export interface UnreadableRun {
  name: string;
  status: 'unreadable';
  reason: string;
}

export type RunRow = RunSummary | UnreadableRun;

/** A sweep's own folders beside its runs (`curricula sweep`: logs/ and compare/), not runs. */
const sweepFolders = new Set(['logs', 'compare']);

export function listRuns(realRoot: string): RunRow[] {
  const rows: RunRow[] = [];
  const sweep = existsSync(join(realRoot, 'sweep.json'));
  for (const name of readdirSync(realRoot).sort()) {
    if (name.startsWith('.')) continue;
    if (sweep && sweepFolders.has(name)) continue;
    let isDir = false;
    try {
      isDir = statSync(join(realRoot, name)).isDirectory();
    } catch (error) {
      rows.push({ name, status: 'unreadable', reason: (error as Error).message });
      continue;
    }
    if (!isDir) continue;
    try {
      rows.push(summariseRun(name, resolveRunDir(realRoot, name)));
    } catch (error) {
      rows.push({ name, status: 'unreadable', reason: (error as Error).message });
    }
  }
  return rows;
}

export function summariseRun(name: string, dir: string): RunSummary {
  if (!isRunDirectory(dir)) {
    const inner = safeCount(dir);
    throw new Error(
      inner > 0
        ? `not a run directory (it holds ${inner} runs: open the dashboard with --runs-dir ${name})`
        : 'not a run directory (no config.json / run.sqlite)',
    );
  }
  const store = RunStore.read(dir);
  try {
    const config = store.config<Record<string, unknown>>();
    const events = store.events();
    const lastStep = store.lastStep();
    const steps = store.stepCount();
    const tokens = store.series('losses/tokens').reduce((sum, row) => sum + (row.value ?? 0), 0);
    const startTime = events.find((event) => event.kind === 'created')?.time ?? null;
    const endTime = lastTime(lastStepTime(dir), events.at(-1)?.time ?? null);
    return {
      name,
      status: runStatus(dir, events),
      startTime,
      wallSeconds:
        startTime && endTime ? Math.max(0, (Date.parse(endTime) - Date.parse(startTime)) / 1000) : null,
      lastStep,
      steps,
      tokens: steps > 0 && store.keys().includes('losses/tokens') ? tokens : null,
      config: configSummary(config),
    };
  } finally {
    store.close();
  }
}

function lastTime(a: string | null, b: string | null): string | null {
  if (a === null) return b;
  if (b === null) return a;
  return Date.parse(a) >= Date.parse(b) ? a : b;
}

const SUMMARY_KEYS: [label: string, path: string[]][] = [
  ['selector', ['selector', 'name']],
  ['guidance', ['guidance', 'name']],
  ['advantage', ['algorithm', 'advantage', 'name']],
  ['loss', ['algorithm', 'loss', 'name']],
  ['seed', ['seed']],
  ['steps', ['train', 'steps']],
  ['checkpoint', ['init', 'checkpoint']],
];

function configSummary(config: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [label, path] of SUMMARY_KEYS) {
    let value: unknown = config;
    for (const part of path) value = (value as Record<string, unknown> | null)?.[part];
    if (value !== undefined && value !== null) out[label] = value;
  }
  return out;
}

function safeCount(dir: string): number {
  try {
    return readdirSync(dir).filter((entry) => isRunDirectory(join(dir, entry))).length;
  } catch {
    return 0;
  }
}

/** The time of the last complete line of metrics.jsonl, read from its last 64 KiB (runs can be long). */
function lastStepTime(dir: string): string | null {
  let fd: number;
  try {
    fd = openSync(join(dir, 'metrics.jsonl'), 'r');
  } catch {
    return null;
  }
  try {
    const size = fstatSync(fd).size;
    const length = Math.min(size, 65536);
    const buffer = Buffer.alloc(length);
    readSync(fd, buffer, 0, length, size - length);
    const lines = buffer.toString('utf8').split('\n').reverse();
    for (const line of lines) {
      try {
        const time = (JSON.parse(line) as { time?: unknown }).time;
        if (typeof time === 'string') return time;
      } catch {
        // a torn or partial line
      }
    }
    return null;
  } finally {
    closeSync(fd);
  }
}
