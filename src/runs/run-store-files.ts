// File-level helpers of the run store (run-store.ts), kept apart so the store class stays one concept:
// reading and repairing metrics.jsonl (append-only; a crash can leave a torn last line), the one-line error
// for a run.sqlite SQLite refuses, event detail parsing and the "is this path inside that directory" test
// used before an overwrite.
import { existsSync, readFileSync, statSync, truncateSync } from 'node:fs';
import { isAbsolute, relative, sep } from 'node:path';
import Database from 'better-sqlite3';
import { UserError } from '../core/errors.ts';

/** Parses a JSONL file, skipping a partial last line. */
export function readJsonlLines(path: string): unknown[] {
  const text = readFileSync(path, 'utf8');
  const out: unknown[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    try {
      out.push(JSON.parse(line));
    } catch {
      // A torn last line from a crash; everything before it is intact.
    }
  }
  return out;
}

/**
 * Drops a partial last line left by a crash in the middle of an append; returns the bytes dropped, or null
 * when the file was intact (or absent).
 */
export function repairJsonl(path: string): number | null {
  if (!existsSync(path)) return null;
  const text = readFileSync(path, 'utf8');
  if (text.length === 0 || text.endsWith('\n')) return null;
  const keptBytes = Buffer.byteLength(text.slice(0, text.lastIndexOf('\n') + 1));
  const droppedBytes = statSync(path).size - keptBytes;
  truncateSync(path, keptBytes);
  return droppedBytes;
}

/**
 * Why JSON.parse refused a file, without quoting the file: V8's message shows its first characters
 * (`Unexpected token 'r', "root:x:0:0:"... is not valid JSON`), which an error must never pass on (a
 * config.json linked to a secret file). Only the position is kept.
 */
export function describeJsonError(error: unknown): string {
  const message = (error as Error)?.message ?? '';
  const position = /position (\d+)/.exec(message)?.[1];
  if (/Unexpected end of JSON input/.test(message)) return 'not valid JSON: it ends too early';
  return `not valid JSON${position === undefined ? '' : ` at position ${position}`}`;
}

/** SQLite refusing the file (not a database, corrupt, unreadable) is a damaged run: one line naming it. */
export function unreadableStore(path: string, error: unknown): unknown {
  if (!(error instanceof Database.SqliteError)) return error;
  return new UserError(
    `run store ${path} cannot be opened: ${error.message} (${error.code}); restore it from a backup, or start a new run`,
  );
}

export function isSameOrInside(path: string, dir: string): boolean {
  const fromDir = relative(dir, path);
  return fromDir === '' || (fromDir !== '..' && !fromDir.startsWith(`..${sep}`) && !isAbsolute(fromDir));
}

export function parseDetail(detail: string | null): unknown {
  if (detail === null) return null;
  try {
    return JSON.parse(detail);
  } catch {
    return detail;
  }
}
