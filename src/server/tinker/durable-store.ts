// The on-disk form of a training model's durable state, so that `curricula serve --tinker` survives a
// restart (docs/tinker-serving.md, "Surviving a server restart"). One model's state lives in
// <stateDir>/<model_id>/durable/ as numbered versions:
//   v-<n>/durable.json        what the server needs besides the weights (ids, optimizer step count, last
//                             executed seq_id, results of the last completed optim_steps) and a manifest
//                             (bytes + sha256) of every file under checkpoint/;
//   v-<n>/checkpoint/         policy.save(): weights, Adam moments and step, config, tokenizer — absent
//                             while the model still has the served checkpoint's weights (`weights: base`).
// Atomic: a version is written under .tmp-<n> (a name no reader lists), every file and the directory are
// fsynced, then it is renamed to v-<n> and the parent fsynced; the two newest versions are kept. A kill
// during the write leaves a .tmp-<n> that is ignored (and removed by the next write), so the previous
// version stays the valid one. A version whose durable.json does not parse or whose files do not match
// the manifest (truncated, flipped bytes) is refused with a reason, and the reader falls back to an older one.
import { createHash } from 'node:crypto';
import {
  closeSync,
  existsSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { isAbsolute, join, relative, sep } from 'node:path';
import { z } from 'zod';
import type { PolicyBackend } from '../../core/policy.ts';
import { durableDir } from './paths.ts';

const completedSchema = z.object({
  /** The route-scoped idempotency key of the optim_step (deps.ts idempotencyKey), if it had one. */
  key: z.string().nullable(),
  requestId: z.string(),
  body: z.record(z.string(), z.unknown()),
});
export type CompletedStep = z.infer<typeof completedSchema>;

const metaSchema = z.object({
  format: z.literal('curricula-tinker-durable'),
  version: z.literal(1),
  modelId: z.string(),
  sessionId: z.string(),
  modelSeq: z.number().int().nonnegative(),
  baseModel: z.string(),
  loraConfig: z.record(z.string(), z.unknown()).nullable(),
  optimizerSteps: z.number().int().nonnegative(),
  /** seq_id of the last request whose effect this state includes (optim_step / load_weights); null: none. */
  lastSeqId: z.number().int().nullable(),
  nextSamplerSeq: z.number().int().nonnegative(),
  weights: z.enum(['base', 'saved']),
  completed: z.array(completedSchema),
  files: z.array(z.object({ path: z.string(), bytes: z.number().int(), sha256: z.string() })),
});
export type DurableMeta = z.infer<typeof metaSchema>;
export type DurableRecord = Omit<DurableMeta, 'format' | 'version' | 'files' | 'weights'>;

export const durableFile = 'durable.json';
export const checkpointSubdir = 'checkpoint';
const versionPattern = /^v-(\d+)$/;
/** Versions kept after a write: the new one and the one before it. */
const keep = 2;

/** Version directories of one model, newest first. */
export function durableVersions(root: string): string[] {
  if (!existsSync(root)) return [];
  return readdirSync(root)
    .filter((name) => versionPattern.test(name))
    .sort((a, b) => Number(b.slice(2)) - Number(a.slice(2)))
    .map((name) => join(root, name));
}

function fsyncPath(path: string): void {
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((name) => join(dir, name))
    .filter((path) => statSync(path).isFile())
    .sort();
}

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/**
 * Writes a new version of a model's state; `policy` (when given) is saved as its weights, otherwise the
 * version says `weights: base`. Returns the version directory.
 */
export async function writeDurableState(
  stateDir: string,
  record: DurableRecord,
  policy: PolicyBackend | undefined,
): Promise<string> {
  const root = durableDir(stateDir, record.modelId);
  mkdirSync(root, { recursive: true });
  const newest = durableVersions(root)[0];
  const number = newest === undefined ? 1 : Number(newest.slice(newest.lastIndexOf('v-') + 2)) + 1;
  const temporary = join(root, `.tmp-${number}`);
  rmSync(temporary, { recursive: true, force: true });
  mkdirSync(temporary);
  if (policy) await policy.save(join(temporary, checkpointSubdir));
  const files = filesUnder(join(temporary, checkpointSubdir)).map((path) => {
    const bytes = readFileSync(path);
    fsyncPath(path);
    return { path: relative(temporary, path), bytes: bytes.length, sha256: sha256(bytes) };
  });
  const meta: DurableMeta = {
    format: 'curricula-tinker-durable',
    version: 1,
    ...record,
    weights: policy ? 'saved' : 'base',
    files,
  };
  writeFileSync(join(temporary, durableFile), `${JSON.stringify(meta)}\n`);
  fsyncPath(join(temporary, durableFile));
  if (policy) fsyncPath(join(temporary, checkpointSubdir));
  fsyncPath(temporary);
  const target = join(root, `v-${number}`);
  renameSync(temporary, target);
  fsyncPath(root);
  for (const old of durableVersions(root).slice(keep)) rmSync(old, { recursive: true, force: true });
  for (const name of readdirSync(root))
    if (name.startsWith('.tmp-')) rmSync(join(root, name), { recursive: true, force: true });
  return target;
}

/** The metadata of one version after checking it against its manifest; throws Error naming the problem. */
export function readDurableVersion(dir: string): DurableMeta {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(join(dir, durableFile), 'utf8'));
  } catch (error) {
    throw new Error(`${durableFile} is unreadable (${(error as Error).message})`);
  }
  const parsed = metaSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`${durableFile}: ${issue.path.join('.') || '(root)'}: ${issue.message}`);
  }
  const meta = parsed.data;
  for (const file of meta.files) {
    const path = join(dir, file.path);
    const rel = relative(dir, path);
    if (isAbsolute(rel) || !rel.startsWith(`${checkpointSubdir}${sep}`))
      throw new Error(`${durableFile} names a file outside the version: ${file.path}`);
    if (!existsSync(path)) throw new Error(`${file.path} is missing`);
    const bytes = readFileSync(path);
    if (bytes.length !== file.bytes)
      throw new Error(`${file.path} has ${bytes.length} bytes, the manifest says ${file.bytes} (truncated?)`);
    if (sha256(bytes) !== file.sha256) throw new Error(`${file.path} does not match its sha256 (corrupt)`);
  }
  if (meta.weights === 'saved' && meta.files.length === 0)
    throw new Error(`${durableFile} says weights are saved but lists no files`);
  return meta;
}

/** Model directories of stateDir that hold a durable/ folder (their names are model ids). */
export function durableModelRoots(stateDir: string): string[] {
  if (!existsSync(stateDir)) return [];
  return readdirSync(stateDir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(join(stateDir, entry.name, 'durable')))
    .map((entry) => join(stateDir, entry.name, 'durable'));
}
