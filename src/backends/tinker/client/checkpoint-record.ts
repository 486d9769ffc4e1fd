// A Curricula checkpoint of a model trained on a Tinker service holds no weights: the weights stay on the
// server, and the checkpoint directory holds `tinker-checkpoint.json`, a record of where they are (the
// `tinker://` path save_weights returned) and of the server and base model they belong to. Written by
// TinkerPolicyBackend.save, read when a run resumes (src/training/policy-backends.ts).
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { ConfigError } from '../../../core/errors.ts';

export const tinkerRecordFile = 'tinker-checkpoint.json';

const recordSchema = z.object({
  backend: z.literal('tinker'),
  url: z.string(),
  baseModel: z.string(),
  modelId: z.string(),
  path: z.string().startsWith('tinker://', 'is not a tinker:// path'),
  optimizerSteps: z.number().int().nonnegative(),
});
export type TinkerCheckpointRecord = z.infer<typeof recordSchema>;

export function writeTinkerRecord(dir: string, record: TinkerCheckpointRecord): void {
  const target = resolve(dir);
  mkdirSync(target, { recursive: true });
  writeFileSync(join(target, tinkerRecordFile), `${JSON.stringify(record, null, 2)}\n`);
}

/** True when `dir` is a checkpoint written by TinkerPolicyBackend.save (a record, not weights). */
export function isTinkerCheckpoint(dir: string): boolean {
  return existsSync(join(dir, tinkerRecordFile));
}

/**
 * The record in `dir`, checked: it must parse, and name the server and base model of this run (weights
 * saved on one server cannot be loaded on another). ConfigError naming the file otherwise.
 */
export function readTinkerRecord(dir: string, url: string, baseModel: string): TinkerCheckpointRecord {
  const file = join(dir, tinkerRecordFile);
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new ConfigError(
      `checkpoint ${dir}: ${tinkerRecordFile} is unreadable (${(error as Error).message})`,
    );
  }
  const parsed = recordSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ConfigError(
      `checkpoint ${dir}: ${tinkerRecordFile}: ${issue.path.join('.') || '(root)'} ${issue.message}`,
    );
  }
  const record = parsed.data;
  if (record.url !== url || record.baseModel !== baseModel) {
    throw new ConfigError(
      `checkpoint ${dir} was saved on ${record.url} (${record.baseModel}); this run uses ${url} (${baseModel})`,
    );
  }
  return record;
}
