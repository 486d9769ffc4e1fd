// Crash-safe file writes. writeFileDurably writes every byte and fsyncs; writeFileAtomic does that to a
// temporary sibling and renames it over the target, so a reader never sees a half-written file and after a
// crash the old version (or nothing) is there. Directory trees (checkpoints, reports) are built in a
// temporary directory with writeFileDurably, then renamed and made durable with fsyncDirectory. A kill
// between the write and the rename leaves the temporary (ATOMIC_TEMPORARY); checkpoints.ts prunes those
// of dead writers in a run's checkpoints directory.
import { closeSync, fsyncSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** Writes all of `data` to `path` (looping over partial writes) and fsyncs it. */
export function writeFileDurably(path: string, data: string | Uint8Array): void {
  const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  const fd = openSync(path, 'w');
  try {
    let written = 0;
    while (written < bytes.length) written += writeSync(fd, bytes, written, bytes.length - written);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** The temporary file name writeFileAtomic uses: `.<pid>.<milliseconds>.tmp` (group 1: the writer's pid). */
export const ATOMIC_TEMPORARY = /^\.(\d+)\.\d+\.tmp$/;

export function writeFileAtomic(path: string, data: string | Uint8Array): void {
  const temporary = join(dirname(path), `.${process.pid}.${Date.now()}.tmp`);
  try {
    writeFileDurably(temporary, data);
    renameSync(temporary, path);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
  fsyncDirectory(dirname(path));
}

/** Makes a rename durable (best effort: some filesystems refuse to fsync a directory). */
export function fsyncDirectory(dir: string): void {
  try {
    const fd = openSync(dir, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    // Not supported here; the rename is still atomic, only its durability on power loss is weaker.
  }
}
