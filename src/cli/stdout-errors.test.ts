// The CLI when its standard output fails: a reader that closes early (`curricula --help | head -1`) ends it
// quietly with exit 0, and a full device is one line and exit 1; neither is an EPIPE/ENOSPC stack trace.
import { spawn, spawnSync } from 'node:child_process';
import { openSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { cliPath, repoRoot } from '../../test/helpers.ts';

describe('curricula when stdout fails', () => {
  it('a reader that closes at once: exit 0 and nothing on stderr', async () => {
    const child = spawn(process.execPath, [cliPath, '--help'], {
      cwd: repoRoot,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(stderr).toBe('');
    expect(code).toBe(0);
  });

  it('a full device: one line and exit 1', () => {
    const result = spawnSync(process.execPath, [cliPath, '--help'], {
      cwd: repoRoot,
      encoding: 'utf8',
      stdio: ['ignore', openSync('/dev/full', 'w'), 'pipe'],
    });
    expect(result.stderr.trim().split('\n')).toEqual([
      'error: cannot write to standard output: ENOSPC: no space left on device, write',
    ]);
    expect(result.status).toBe(1);
  });
});
