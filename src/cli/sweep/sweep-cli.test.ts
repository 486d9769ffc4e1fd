// `curricula sweep` end to end with real `curricula train` runs (demo-cold, a few tiny steps): a grid of
// two selectors, a SIGTERM to the sweep mid-run (the queue keeps the run pending), the same command again
// (it finishes the sweep and compares), and once more (every run skipped).
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliPath, repoRoot, runCli } from '../../../test/helpers.ts';

const config = (dir: string) => {
  const path = join(dir, 'tiny.yaml');
  writeFileSync(
    path,
    [
      'name: tiny',
      `init: { checkpoint: ${join(repoRoot, 'examples/checkpoints/demo-cold')} }`,
      'tasks: [{ task: addition, difficulties: [2] }]',
      'poolSize: 20',
      'rollout: { groupSize: 2, maxTokens: 24 }',
      'train: { steps: 3, batchSize: 2, learningRate: 0.0001 }',
      'eval: { every: 0, problemsPerDifficulty: 4, samples: 1 }',
      'checkpoint: { latestEvery: 1 }',
      '',
    ].join('\n'),
  );
  return path;
};

const queueOf = (out: string) =>
  JSON.parse(readFileSync(join(out, 'sweep.json'), 'utf8')) as {
    runs: { name: string; status: string; attempts: number }[];
  };

describe('curricula sweep', () => {
  it('survives a SIGTERM, continues on the same command, compares, and skips what is done', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sweep-cli-'));
    const out = join(dir, 'sweep');
    const args = [
      'sweep',
      '--config',
      config(dir),
      '--grid',
      'selector.name=uniform,sec',
      '--seeds',
      '1',
      '--out',
      out,
      '--concurrency',
      '1',
    ];

    // Stopped while its first run trains: exit 130, that run back to pending.
    const child = spawn(process.execPath, [cliPath, ...args], {
      cwd: repoRoot,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    const code = await new Promise<number | null>((resolve) => {
      const poll = setInterval(() => {
        if (existsSync(join(out, 'uniform-s1', 'checkpoints', 'LATEST'))) {
          clearInterval(poll);
          child.kill('SIGTERM');
        }
      }, 100);
      child.on('exit', (exitCode) => {
        clearInterval(poll);
        resolve(exitCode);
      });
    });
    expect(code, stderr).toBe(130);
    expect(stderr).toMatch(/sweep: stopped; run the same command again to continue/);
    expect(queueOf(out).runs.map((run) => run.status)).toEqual(['pending', 'pending']);

    const again = runCli([...args, '--json'], { timeoutMs: 300_000 });
    expect(again.status, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/sweep: uniform-s1 resumed/);
    const result = JSON.parse(again.stdout);
    expect(result.runs.map((run: { status: string }) => run.status)).toEqual(['finished', 'finished']);
    expect(existsSync(result.compare)).toBe(true);
    expect(readFileSync(result.compare, 'utf8')).toContain('sec');
    expect(queueOf(out).runs.map((run) => run.attempts)).toEqual([2, 1]);

    const third = runCli(args, { timeoutMs: 120_000 });
    expect(third.status, third.stderr).toBe(0);
    expect(third.stderr).toMatch(/sweep: 2 runs in .*; 2 already finished/);
    expect(third.stderr).not.toMatch(/started|resumed/);
  }, 600_000);

  it('bad input: one line, exit 2', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sweep-cli-'));
    const cases: [string[], RegExp][] = [
      [['sweep', '--config', join(dir, 'none.yaml')], /no such file/],
      [['sweep', '--config', config(dir), '--grid', 'selector.name'], /key=value1,value2/],
      [['sweep', '--config', config(dir), '--seeds', '1,1'], /--seeds must be distinct integers/],
      [['sweep', '--config', config(dir), '--seeds', '1,'], /--seeds must be an integer, got ''/],
      [['sweep', '--config', config(dir), '--set', 'train.steps'], /--set 'train.steps': give path=value/],
    ];
    for (const [args, message] of cases) {
      const result = runCli(args);
      expect(result.status, args.join(' ')).toBe(2);
      expect(result.stderr).toMatch(message);
    }
  });
});
