// The teach and distill commands through the real CLI: bad input is one line on stderr and exit code 2,
// before any run directory exists.
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../../../test/helpers.ts';

const dir = tempDir('teach-cli');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function expectOneLineError(result: { status: number | null; stderr: string }, message: RegExp): void {
  expect(result.status).toBe(2);
  const lines = result.stderr.trim().split('\n');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(message);
}

describe('teach and distill CLI', () => {
  it('refuses a missing student, a bad --source and --config with --resume', () => {
    expectOneLineError(
      runCli([
        'teach',
        '--config',
        'examples/ladder-teach.yaml',
        '--set',
        `runsDir=${dir}`,
        '--set',
        'student.checkpoint=nowhere',
      ]),
      /^error: student\.checkpoint: checkpoint nowhere does not exist$/,
    );
    expect(existsSync(join(dir, 'ladder-teach'))).toBe(false);
    expectOneLineError(
      runCli(['distill', '--config', 'examples/ladder-distill.yaml', '--source', 'bogus']),
      /^error: --source must be one of teacher, solutions, answers, got 'bogus'$/,
    );
    expectOneLineError(
      runCli([
        'distill',
        '--config',
        'examples/ladder-distill.yaml',
        '--set',
        `runsDir=${dir}`,
        '--set',
        'rlt.x=1',
      ]),
      /rlt/,
    );
    expectOneLineError(
      runCli(['teach', '--config', 'examples/ladder-teach.yaml', '--resume', dir]),
      /^error: teach --resume uses the stored config: drop --config/,
    );
  }, 60_000);
});
