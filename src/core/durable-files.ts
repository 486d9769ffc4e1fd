// Crash-safe file writes. writeFileDurably writes every byte and fsyncs; writeFileAtomic does that to a
// temporary sibling and renames it over the target, so a reader never sees a half-written file and after a
// crash the old version (or nothing) is there. Directory trees (checkpoints, reports) are built in a
// temporary directory with writeFileDurably, then renamed and made durable with fsyncDirectory.
import { closeSync, fsyncSync, openSync, renameSync, writeSync } from 'node:fs';
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

export function writeFileAtomic(path: string, data: string | Uint8Array): void {
  const temporary = join(dirname(path), `.${process.pid}.${Date.now()}.tmp`);
  writeFileDurably(temporary, data);
  renameSync(temporary, path);
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
