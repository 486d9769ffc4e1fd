// `curricula dashboard` through the CLI binary: prints the URL (loopback: no token), serves the runs
// table there; a non-loopback host prints a token-bearing URL once and refuses requests without it; a
// missing runs directory is one clear line and exit code 2.
import { type ChildProcess, spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { cliPath, repoRoot, runCli } from '../../test/helpers.ts';
import { createTestRuns } from '../testing/dashboard/test-runs.ts';

let child: ChildProcess | null = null;
afterEach(() => {
  child?.kill();
  child = null;
});

function startDashboard(args: string[]): Promise<{ url: string }> {
  child = spawn(process.execPath, [cliPath, 'dashboard', '--port', '0', '--json', ...args], {
    cwd: repoRoot,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    child!.stdout!.on('data', (chunk) => {
      out += chunk;
      if (out.includes('\n')) resolve(JSON.parse(out.split('\n')[0]));
    });
    child!.stderr!.on('data', (chunk) => {
      err += chunk;
    });
    child!.on('exit', (code) => reject(new Error(`dashboard exited with ${code}: ${err}`)));
  });
}

describe('curricula dashboard', () => {
  it('prints a loopback URL that serves the page and the runs', async () => {
    const { runsDir } = createTestRuns();
    const { url } = await startDashboard(['--runs-dir', runsDir]);
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    expect((await fetch(url)).status).toBe(200);
    const runs = (await (await fetch(`${url}api/runs`)).json()) as { runs: { name: string }[] };
    expect(runs.runs.map((run) => run.name)).toContain('sec-s1');
  });

  it('with a non-loopback host prints a token URL and refuses requests without the token', async () => {
    const { runsDir } = createTestRuns();
    const { url } = await startDashboard(['--runs-dir', runsDir, '--host', '0.0.0.0']);
    const match = /^http:\/\/0\.0\.0\.0:(\d+)\/\?token=([0-9a-f]{64})$/.exec(url);
    expect(match).not.toBeNull();
    const [, port, token] = match!;
    expect((await fetch(`http://127.0.0.1:${port}/api/runs`)).status).toBe(401);
    expect((await fetch(`http://127.0.0.1:${port}/api/runs?token=${token}`)).status).toBe(200);
  });

  it('refuses a missing runs directory with one line', () => {
    const missing = runCli(['dashboard', '--runs-dir', '/nonexistent/runs', '--port', '0']);
    expect(missing.status).toBe(2);
    expect(missing.stderr.trim().split('\n')).toHaveLength(1);
    expect(missing.stderr).toMatch(/runs directory .* does not exist/);
  });
});
