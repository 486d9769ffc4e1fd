import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Command } from 'commander';
import { describe, expect, it, vi } from 'vitest';
import { register } from '../../cli/commands/report.ts';
import { createMinimalRun, createSyntheticRun } from '../../testing/runs/report/synthetic-run.ts';

const run = promisify(execFile);
const cli = join(process.cwd(), 'bin', 'curricula.mjs');

async function curricula(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run('node', [cli, ...args], { encoding: 'utf8' });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

describe('curricula report', () => {
  it('fails with exit code 2 and one line on a directory that is not a run', async () => {
    const notRun = mkdtempSync(join(tmpdir(), 'not-a-run-'));
    const refused = await curricula(['report', notRun]);
    expect(refused.code).toBe(2);
    expect(refused.stderr.trim().split('\n')).toEqual([
      `error: ${notRun} is not a run directory (no config.json / run.sqlite)`,
    ]);
  });

  // In-process (only this command registered), to spare a second start of the whole CLI.
  it('prints the report path, the Markdown with --stdout, and {reportPath, plots, summary} with --json', async () => {
    const minimal = createMinimalRun();
    expect(await capture(() => parse(['report', minimal]))).toBe(`${join(minimal, 'report', 'report.md')}\n`);
    const markdown = await capture(() => parse(['report', minimal, '--stdout']));
    expect(markdown).toBe(readFileSync(join(minimal, 'report', 'report.md'), 'utf8'));
    expect(markdown).toContain('# Run report: minimal');
    const runDir = createSyntheticRun();
    const json = JSON.parse(await capture(() => parse(['report', runDir, '--json'])));
    expect(json.reportPath).toBe(join(runDir, 'report', 'report.md'));
    expect(json.plots).toContain(join(runDir, 'report', 'reward.svg'));
    expect(json.summary.comparison.k).toBe(4);
    await expect(parse(['report', runDir, '--json', '--stdout'])).rejects.toMatchObject({
      code: 'commander.conflictingOption',
    });
  });
});

async function parse(args: string[]): Promise<void> {
  const program = new Command().exitOverride();
  register(program);
  await program.parseAsync(['node', 'curricula', ...args]);
}

/** Everything written to stdout (console.log or process.stdout.write) while `action` runs. */
async function capture(action: () => Promise<void>): Promise<string> {
  let output = '';
  const write = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
    output += String(chunk);
    return true;
  });
  const log = vi.spyOn(console, 'log').mockImplementation((...values) => {
    output += `${values.join(' ')}\n`;
  });
  try {
    await action();
  } finally {
    write.mockRestore();
    log.mockRestore();
  }
  return output;
}
