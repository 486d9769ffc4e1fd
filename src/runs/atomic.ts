// Crash-safe file writes: write to a temporary sibling, fsync, rename over the target. A reader never sees
// a half-written file; after a crash the old version (or nothing) is there.
import { closeSync, fsyncSync, openSync, renameSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';

export function writeFileAtomic(path: string, data: string | Uint8Array): void {
  const temporary = join(dirname(path), `.${process.pid}.${Date.now()}.tmp`);
  const fd = openSync(temporary, 'w');
  try {
    writeSync(fd, typeof data === 'string' ? Buffer.from(data) : data);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
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
