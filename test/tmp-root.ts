// Vitest global setup: every test's temporary files go into one directory of this test run, removed at the
// end. Tests and the servers they start mkdtemp under os.tmpdir(); many never remove what they made (a
// Tinker test server's state directory holds a model, 173 MB), and 490 of them filled the disk of a CI
// machine (ENOSPC, 'database or disk is full', 2026-12-07). TMPDIR is set here, before the worker
// processes fork (pool 'forks' inherits the environment), so os.tmpdir() in every worker and in every child
// process they spawn points inside this directory.
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export default function setup(): () => void {
  const previous = process.env.TMPDIR;
  const root = mkdtempSync(join(tmpdir(), 'curricula-tests-'));
  // The code-tests sandbox runs programs as another user, which must traverse into its own 0755 directory
  // inside this one: execute without read, so other users cannot list what the tests write.
  chmodSync(root, 0o711);
  process.env.TMPDIR = root;
  return () => {
    if (previous === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previous;
    rmSync(root, { recursive: true, force: true });
  };
}
