// `tinker://` checkpoint paths ↔ directories inside the server's state directory (ProtocolContext.stateDir).
// Hosted Tinker names checkpoints `tinker://<model_id>/weights/<name>` (save_weights / save_state) and
// `tinker://<model_id>/sampler_weights/<name>` (save_weights_for_sampler); we use the same form, stored at
// <stateDir>/<model_id>/<kind>/<name>. Every path from a client is checked before any read or write:
// only the tinker:// scheme, exactly three segments, each a plain name (letters, digits, . _ : -, not
// starting with a dot, so no `..`), and the resolved directory must lie inside stateDir.
import { isAbsolute, join, relative, resolve } from 'node:path';
import { badRequest } from './http-errors.ts';

export type CheckpointKind = 'weights' | 'sampler_weights';

const segmentPattern = /^[A-Za-z0-9_][A-Za-z0-9._:-]{0,199}$/;

/** Throws 400 unless `name` is a single safe path segment. */
export function checkName(name: string, what: string): string {
  if (!segmentPattern.test(name)) {
    throw badRequest(
      `${what} '${name}' must be a plain name (letters, digits, . _ : -; no '/', no leading '.')`,
    );
  }
  return name;
}

export function tinkerPath(modelId: string, kind: CheckpointKind, name: string): string {
  return `tinker://${modelId}/${kind}/${name}`;
}

/** The directory of a checkpoint, checked to lie inside stateDir. */
export function checkpointDir(stateDir: string, modelId: string, kind: CheckpointKind, name: string): string {
  return inside(stateDir, join(checkName(modelId, 'model id'), kind, checkName(name, 'checkpoint name')));
}

/** The directory of a model's durable state (durable-store.ts), checked to lie inside stateDir. */
export function durableDir(stateDir: string, modelId: string): string {
  return inside(stateDir, join(checkName(modelId, 'model id'), 'durable'));
}

/** Parses a client's tinker:// path into its directory inside stateDir; throws 400 on anything else. */
export function resolveTinkerPath(
  stateDir: string,
  path: string,
): { dir: string; modelId: string; kind: CheckpointKind } {
  if (!path.startsWith('tinker://')) {
    throw badRequest(
      `checkpoint path '${path}' must start with tinker:// (other schemes and file paths are refused)`,
    );
  }
  const segments = path.slice('tinker://'.length).split('/');
  const [modelId, kind, name] = segments;
  if (segments.length !== 3 || (kind !== 'weights' && kind !== 'sampler_weights')) {
    throw badRequest(
      `checkpoint path '${path}' must look like tinker://<model_id>/weights/<name> or …/sampler_weights/<name>`,
    );
  }
  return { dir: checkpointDir(stateDir, modelId, kind, name), modelId, kind };
}

function inside(root: string, relativePath: string): string {
  const base = resolve(root);
  const target = resolve(base, relativePath);
  const rel = relative(base, target);
  if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) {
    throw badRequest(`checkpoint path escapes the server's state directory`);
  }
  return target;
}
