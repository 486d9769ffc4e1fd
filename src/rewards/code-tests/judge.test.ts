// Verdict precedence on synthetic sandbox outcomes (the real programs are in hostile.test.ts).
import { describe, expect, it } from 'vitest';
import { judge } from './judge.ts';
import type { SandboxOutcome } from './sandbox.ts';
import type { TestCase } from './schema.ts';

const base: SandboxOutcome = {
  exitCode: 0,
  signal: null,
  stdout: '3\n',
  stderr: '',
  wallMs: 20,
  timedOut: false,
  outputExceeded: null,
  memoryExceededMb: null,
};
const options = {
  mode: 'whitespace' as const,
  tolerance: { relTol: 1e-6, absTol: 1e-6 },
  timeoutMs: 1000,
  maxOutputBytes: 100,
};
const stdio: TestCase = { kind: 'stdio', input: '', output: '3' };
const call: TestCase = { kind: 'call', fn: 'f', args: [], expected: [1, 2] };

describe('judge', () => {
  it('classifies by precedence: OLE, TLE, MLE, file size, RE, then the comparison', () => {
    const verdict = (outcome: Partial<SandboxOutcome>, test: TestCase = stdio) =>
      judge({ ...base, ...outcome }, test, options).status;
    expect(verdict({})).toBe('AC');
    expect(verdict({ stdout: '4' })).toBe('WA');
    expect(verdict({ outputExceeded: 'stdout', timedOut: true, exitCode: null, signal: 'SIGKILL' })).toBe(
      'OLE',
    );
    expect(verdict({ memoryExceededMb: 192, timedOut: true, exitCode: null, signal: 'SIGKILL' })).toBe('MLE');
    expect(verdict({ timedOut: true, exitCode: null, signal: 'SIGKILL' })).toBe('TLE');
    expect(verdict({ exitCode: 152 })).toBe('TLE');
    expect(verdict({ exitCode: 1, stderr: 'Traceback …\nMemoryError\n' })).toBe('MLE');
    expect(verdict({ exitCode: 134, stderr: 'FATAL ERROR: Reached heap limit Allocation failed' })).toBe(
      'MLE',
    );
    expect(verdict({ exitCode: 153 })).toBe('OLE');
    expect(verdict({ exitCode: 1, stderr: "OSError: [Errno 27] File too large: '/work/x'" })).toBe('OLE');
    expect(verdict({ exitCode: 137 })).toBe('RE');
    expect(verdict({ exitCode: 1, stdout: '3', stderr: 'ZeroDivisionError: division by zero' })).toBe('RE');
    expect(verdict({ stdout: '[1, 2]' }, call)).toBe('AC');
    expect(verdict({ stdout: '[2, 1]' }, call)).toBe('WA');
    expect(verdict({ stdout: 'noise [1, 2]' }, call)).toBe('RE');
  });

  it('explains failures without quoting the expected output', () => {
    const wrong = judge({ ...base, stdout: '4\n' }, { kind: 'stdio', input: '', output: 'SECRET' }, options);
    expect(wrong).toEqual({ status: 'WA', detail: 'wrong output (got "4\\n")' });
    const crashed = judge(
      { ...base, exitCode: 1, stderr: 'Traceback\nZeroDivisionError: division by zero\n' },
      stdio,
      options,
    );
    expect(crashed.detail).toBe('exit 1: ZeroDivisionError: division by zero');
  });
});
