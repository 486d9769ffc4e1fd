// Accepts what a user naturally passes as --checkpoint: a run directory (uses BEST, else LATEST), a
// checkpoint directory (step-000100/), or a model directory (holding model.safetensors).
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { CheckpointError, ConfigError } from '../core/errors.ts';
import { shortInput } from '../core/quote-input.ts';
import { readCheckpoint } from './checkpoints.ts';

export interface ResolvedCheckpoint {
  /** Directory holding model.safetensors, config.json, tokenizer.json. */
  modelPath: string;
  /** The run directory this checkpoint belongs to, when there is one. */
  runDir: string | null;
}

export function resolveCheckpoint(path: string): ResolvedCheckpoint {
  const absolute = resolve(path);
  if (!existsSync(absolute)) throw new CheckpointError(`checkpoint ${shortInput(path)} does not exist`);
  if (existsSync(join(absolute, 'checkpoints'))) {
    const ref =
      readCheckpoint(join(absolute, 'checkpoints'), 'BEST') ??
      readCheckpoint(join(absolute, 'checkpoints'), 'LATEST');
    if (!ref) throw new CheckpointError(`run ${path} has no checkpoint yet`);
    return { modelPath: ref.modelPath, runDir: absolute };
  }
  if (existsSync(join(absolute, 'model'))) {
    return { modelPath: join(absolute, 'model'), runDir: runDirAbove(absolute, 2) };
  }
  if (existsSync(join(absolute, 'model.safetensors'))) {
    return { modelPath: absolute, runDir: runDirAbove(absolute, 3) };
  }
  throw new CheckpointError(
    `${path} is neither a run directory, a checkpoint directory nor a model directory (no model.safetensors)`,
  );
}

/**
 * The model directory of a checkpoint named in a config field: resolveCheckpoint, with a path that is not
 * a checkpoint reported as a ConfigError prefixed by `where` (the field), so it stops the run at set-up.
 */
export function configCheckpointModelPath(path: string, where: string): string {
  try {
    return resolveCheckpoint(path).modelPath;
  } catch (error) {
    if (error instanceof CheckpointError) throw new ConfigError(`${where}: ${error.message}`);
    throw error;
  }
}

function runDirAbove(path: string, levels: number): string | null {
  let current = path;
  for (let i = 0; i < levels; i++) current = dirname(current);
  return existsSync(join(current, 'config.json')) && existsSync(join(current, 'run.sqlite')) ? current : null;
}
