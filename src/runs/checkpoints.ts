// Checkpoints of a run: checkpoints/step-000120/{model/, trainer.json}, plus LATEST and BEST pointer
// files. A checkpoint is assembled in a temporary directory and renamed into place, and the pointers are
// replaced atomically, so a kill -9 at any moment leaves the previous checkpoint intact and pointed to.
// A LATEST that is gone (deleted by hand, lost with a copy) does not restart a run from step 0 while an
// intact checkpoint is there: resumeCheckpoint falls back to the newest intact step-* directory and says so.
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { crashPoint } from '../core/crash-point.ts';
import { ATOMIC_TEMPORARY, fsyncDirectory, writeFileAtomic } from '../core/durable-files.ts';
import { CheckpointError } from '../core/errors.ts';
import { processAlive } from '../core/process-alive.ts';
import type { RngState } from '../core/rng.ts';

/** Everything besides the model that a resumed run needs to continue exactly. */
export interface TrainerState {
  step: number;
  rng: RngState;
  /** Selector state (TaskSelector.state()). */
  selector?: unknown;
  /** Best eval score so far and other loop bookkeeping. */
  extra?: Record<string, unknown>;
}

export interface CheckpointRef {
  name: string;
  path: string;
  modelPath: string;
  state: TrainerState;
}

export interface SaveCheckpointOptions {
  /** Keep this checkpoint permanently (every-N checkpoints). */
  keep?: boolean;
  /** Point BEST at it. */
  best?: boolean;
  /** How many recent non-kept checkpoints to retain (default 2). */
  retain?: number;
}

export function checkpointName(step: number): string {
  return `step-${String(step).padStart(6, '0')}`;
}

/**
 * Saves a checkpoint; `saveModel(dir)` writes the model, tokenizer and optimizer files into `dir`
 * (e.g. PolicyBackend.save).
 */
export async function saveCheckpoint(
  checkpointsDir: string,
  state: TrainerState,
  saveModel: (dir: string) => Promise<void>,
  options: SaveCheckpointOptions = {},
): Promise<CheckpointRef> {
  mkdirSync(checkpointsDir, { recursive: true });
  const name = checkpointName(state.step);
  const staging = join(checkpointsDir, `.staging-${name}-${process.pid}`);
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging);
  await saveModel(join(staging, 'model'));
  crashPoint('checkpoint-staged', state.step);
  writeFileAtomic(join(staging, 'trainer.json'), `${JSON.stringify(state)}\n`);
  if (options.keep) writeFileAtomic(join(staging, 'KEEP'), '');
  const path = join(checkpointsDir, name);
  rmSync(path, { recursive: true, force: true });
  renameSync(staging, path);
  fsyncDirectory(checkpointsDir);
  crashPoint('checkpoint-renamed', state.step);
  writeFileAtomic(join(checkpointsDir, 'LATEST'), name);
  if (options.best) writeFileAtomic(join(checkpointsDir, 'BEST'), name);
  prune(checkpointsDir, options.retain ?? 2);
  return { name, path, modelPath: join(path, 'model'), state };
}

/** The checkpoint LATEST (or BEST) points to, or null when the run has none yet. */
export function readCheckpoint(
  checkpointsDir: string,
  pointer: 'LATEST' | 'BEST' = 'LATEST',
): CheckpointRef | null {
  const pointerPath = join(checkpointsDir, pointer);
  if (!existsSync(pointerPath)) return null;
  const name = readFileSync(pointerPath, 'utf8').trim();
  const path = join(checkpointsDir, name);
  const statePath = join(path, 'trainer.json');
  if (!existsSync(statePath)) {
    throw new CheckpointError(
      `${pointerPath} points to ${name}, which is missing or incomplete (${statePath})`,
    );
  }
  return { name, path, modelPath: join(path, 'model'), state: readTrainerState(statePath) };
}

function readTrainerState(statePath: string): TrainerState {
  let state: TrainerState;
  try {
    state = JSON.parse(readFileSync(statePath, 'utf8'));
  } catch (error) {
    // The parser's message quotes the file's first characters: only its kind and position are kept.
    const position = /position (\d+)/.exec((error as Error).message)?.[1];
    throw new CheckpointError(
      `${statePath}: corrupt trainer state (not valid JSON${position === undefined ? '' : ` at position ${position}`})`,
    );
  }
  if (typeof state?.step !== 'number' || !Array.isArray(state.rng) || state.rng.length !== 4) {
    throw new CheckpointError(`${statePath}: trainer state lacks a step number or RNG state`);
  }
  return state;
}

export interface ResumePoint {
  /** The checkpoint to resume from; null when the run has none (it restarts from step 0). */
  checkpoint: CheckpointRef | null;
  /** Set when LATEST was missing and the newest intact checkpoint was found instead: say it to the user. */
  notice?: string;
}

/**
 * Where a resume continues: the checkpoint LATEST points to; when LATEST is missing, the newest intact
 * `step-*` directory (trainer.json readable with a step and RNG state, and a model/ directory), with a
 * notice naming it (and any newer damaged ones skipped). A run with checkpoint directories of which
 * none is intact is refused (CheckpointError) rather than silently restarted from step 0.
 */
export function resumeCheckpoint(checkpointsDir: string): ResumePoint {
  const latestPath = join(checkpointsDir, 'LATEST');
  if (existsSync(latestPath) || !existsSync(checkpointsDir))
    return { checkpoint: readCheckpoint(checkpointsDir) };
  const names = readdirSync(checkpointsDir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && /^step-\d+$/.test(entry.name))
    .map((entry) => entry.name)
    .sort()
    .reverse();
  if (names.length === 0) return { checkpoint: null };
  const skipped: string[] = [];
  for (const name of names) {
    const path = join(checkpointsDir, name);
    try {
      if (!existsSync(join(path, 'model'))) throw new CheckpointError('no model/');
      const state = readTrainerState(join(path, 'trainer.json'));
      const checkpoint = { name, path, modelPath: join(path, 'model'), state };
      const also = skipped.length > 0 ? ` (skipped newer damaged ${skipped.join(', ')})` : '';
      return {
        checkpoint,
        notice: `${latestPath} is missing: resuming from the newest intact checkpoint, ${name} (step ${state.step})${also}`,
      };
    } catch {
      skipped.push(name);
    }
  }
  throw new CheckpointError(
    `${latestPath} is missing and none of the checkpoints in ${checkpointsDir} is intact (${names.join(', ')}); restore the run from a backup, or start a new run`,
  );
}

/**
 * Removes what dead writers left (staging dirs; `.<pid>.<time>.tmp` files of writeFileAtomic, e.g. from a
 * kill during a LATEST/BEST write, whose pid is no longer running) and old checkpoints, keeping LATEST,
 * BEST, KEEP-marked and the newest `retain`.
 */
function prune(checkpointsDir: string, retain: number): void {
  for (const name of readdirSync(checkpointsDir)) {
    const temporary = ATOMIC_TEMPORARY.exec(name);
    if (temporary && !writerAlive(Number(temporary[1]))) rmSync(join(checkpointsDir, name), { force: true });
  }
  const protectedNames = new Set<string>();
  for (const pointer of ['LATEST', 'BEST']) {
    const pointerPath = join(checkpointsDir, pointer);
    if (existsSync(pointerPath)) protectedNames.add(readFileSync(pointerPath, 'utf8').trim());
  }
  const entries = readdirSync(checkpointsDir, { withFileTypes: true }).filter((entry) => entry.isDirectory());
  for (const entry of entries) {
    if (entry.name.startsWith('.staging-') && !entry.name.endsWith(`-${process.pid}`)) {
      rmSync(join(checkpointsDir, entry.name), { recursive: true, force: true });
    }
  }
  const steps = entries
    .map((entry) => entry.name)
    .filter((name) => name.startsWith('step-'))
    .sort()
    .reverse();
  let recent = 0;
  for (const name of steps) {
    if (protectedNames.has(name) || existsSync(join(checkpointsDir, name, 'KEEP'))) continue;
    recent++;
    if (recent > retain) rmSync(join(checkpointsDir, name), { recursive: true, force: true });
  }
}

/** A writer that may still be writing: any live process, this one included. */
function writerAlive(pid: number): boolean {
  return pid === process.pid || processAlive(pid);
}
