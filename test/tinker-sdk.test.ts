// The stock Tinker Python SDK (tinker 0.25.0, unmodified; test/interop/tinker-sdk) drives
// `curricula serve --tinker` on the real demo-cold checkpoint: drive.py --extra walks capabilities, a
// training client, forward_backward (cross_entropy, importance_sampling), optim_step, sampling, save/load
// state, get_info, forward, a pipelined forward_backward + optim_step, a named sampler and
// compute_logprobs, checking shapes and ranges at each step; it must exit 0.
// The first run installs the SDK's Python environment (setup.sh: Debian python3-* packages + vendored
// wheels, no network beyond apt) into $TINKER_SDK_PREFIX or <tmp>/curricula-tinker-sdk; later runs reuse
// it. The debian profile has an ~11 s client-side stall per run (SHIMS.md), hence the generous timeouts.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliPath, repoRoot, tempDir } from './helpers.ts';
import { tinkerSdkPython } from './requirements.ts';

const sdkDir = join(repoRoot, 'test/interop/tinker-sdk');
const prefix = process.env.TINKER_SDK_PREFIX ?? join(tmpdir(), 'curricula-tinker-sdk');
const python = join(prefix, 'venv/bin/python');
const apiKey = 'tml-curricula-test';
let server: ChildProcess | undefined;
let baseUrl = '';
let serverLog = '';

function ensureSdk(): void {
  if (existsSync(python) && existsSync(join(prefix, 'src/tinker/__init__.py'))) return;
  const setup = spawnSync('bash', [join(sdkDir, 'setup.sh'), '--prefix', prefix], {
    encoding: 'utf8',
    timeout: 15 * 60_000,
  });
  if (setup.status !== 0)
    throw new Error(`setup.sh failed (${setup.status}):\n${setup.stdout}\n${setup.stderr}`);
}

function startServer(): Promise<string> {
  const stateDir = tempDir('tinker-sdk-state');
  const child = spawn(
    process.execPath,
    [
      cliPath,
      'serve',
      '--checkpoint',
      'examples/checkpoints/demo-cold',
      '--tinker',
      '--port',
      '0',
      '--api-key',
      apiKey,
      '--state-dir',
      stateDir,
      '--workers',
      '1',
    ],
    { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  server = child;
  return new Promise((resolveUrl, reject) => {
    child.stderr!.on('data', (chunk) => {
      serverLog += chunk;
    });
    child.stdout!.on('data', (chunk) => {
      serverLog += chunk;
      const match = /listening on (http:\/\/\S+)/.exec(serverLog);
      if (match) resolveUrl(match[1]);
    });
    child.on('exit', (code) => reject(new Error(`curricula serve exited (${code}):\n${serverLog}`)));
  });
}

function drive(): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const args = [
    join(sdkDir, 'drive.py'),
    '--sdk-src',
    join(prefix, 'src'),
    '--base-url',
    baseUrl,
    '--api-key',
    apiKey,
    '--base-model',
    'demo-cold',
    '--example',
    '1,40,41,42,43,44,45',
    '--example',
    '1,50,51,52,53',
    '--prompt',
    '1,40,41',
    '--vocab-size',
    '99',
    '--step-timeout',
    '120',
    '--extra',
  ];
  const child = spawn(python, args, { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => {
    stdout += chunk;
  });
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  return new Promise((resolveRun) => child.on('exit', (code) => resolveRun({ code, stdout, stderr })));
}

const sdkNeeds = tinkerSdkPython();

describe.skipIf(sdkNeeds.skip)(
  `the stock Tinker SDK against curricula serve --tinker${sdkNeeds.label}`,
  () => {
    beforeAll(async () => {
      ensureSdk();
      baseUrl = await startServer();
    }, 20 * 60_000);

    afterAll(() => {
      server?.kill('SIGTERM');
    });

    it(
      'drive.py --extra exits 0',
      async () => {
        const run = await drive();
        if (run.code !== 0) {
          console.error(
            `drive.py exited ${run.code}\n--- stdout (one JSON line per step)\n${run.stdout}\n--- stderr\n${run.stderr.slice(-4000)}\n--- server\n${serverLog.slice(-4000)}`,
          );
        }
        expect(run.code).toBe(0);
        const summary = JSON.parse(run.stdout.trim().split('\n').at(-1)!);
        expect(summary).toMatchObject({ step: 'summary', ok: true });
        expect(Object.keys(summary.steps)).toContain('compute_logprobs');
      },
      5 * 60_000,
    );
  },
);
