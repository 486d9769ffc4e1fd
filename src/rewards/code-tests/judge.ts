// Turns one sandbox outcome into a verdict: AC, WA, TLE, RE, MLE or OLE (plus SKIP for tests not run after
// a fail-fast stop), with a one-line detail. Order of precedence: output cap, memory watchdog, wall time,
// CPU time (SIGXCPU), memory, file size, crash, then the comparison (done here, outside the sandbox).
//
// Follows LiveCodeBench's result codes (−2 WA, −3 TLE, −4 RE) and adds MLE/OLE, which the Python graders
// fold into RE. MLE is recognised from the interpreters' own messages (Python MemoryError under RLIMIT_AS;
// V8 heap exhaustion or a failed ArrayBuffer allocation under RLIMIT_DATA), since rlimits do not kill.
// Details quote the program's output only through `printable` (no terminal escapes or control characters).
// Runs on the host over output the sandbox has already capped (supervisor.ts CappedStream); every step is
// linear in it (compare.ts, printable.ts, JSON.parse), checked on adversarial 1 MiB outputs in
// linear-time.test.ts.
import { type CompareMode, compareJson, compareOutput, type Tolerance } from './compare.ts';
import { printable } from './printable.ts';
import type { SandboxOutcome } from './sandbox.ts';
import type { TestCase } from './schema.ts';

export type TestStatus = 'AC' | 'WA' | 'TLE' | 'RE' | 'MLE' | 'OLE' | 'SKIP';

export interface Verdict {
  status: TestStatus;
  /** Why it is not AC (absent when AC). Never contains the expected output. */
  detail?: string;
}

const signalExit = (signal: number) => 128 + signal;
const sigkill = 9;
const sigxcpu = 24;
const sigxfsz = 25;
const memoryPattern =
  /\bMemoryError\b|heap out of memory|Array buffer allocation failed|Cannot allocate memory|std::bad_alloc|Invalid array length|Reached heap limit/;

function lastLine(text: string): string {
  const lines = printable(text).trim().split('\n');
  const line = lines[lines.length - 1] ?? '';
  return line.length > 200 ? `${line.slice(0, 200)}…` : line;
}

export interface JudgeOptions {
  mode: CompareMode;
  tolerance: Tolerance;
  timeoutMs: number;
  maxOutputBytes: number;
}

export function judge(outcome: SandboxOutcome, test: TestCase, options: JudgeOptions): Verdict {
  if (outcome.outputExceeded) {
    return {
      status: 'OLE',
      detail: `${outcome.outputExceeded} passed ${options.maxOutputBytes} bytes; killed`,
    };
  }
  if (outcome.memoryExceededMb !== null) {
    return {
      status: 'MLE',
      detail: `sandbox processes together passed ${outcome.memoryExceededMb} MiB resident; killed`,
    };
  }
  if (outcome.timedOut) return { status: 'TLE', detail: `wall time passed ${options.timeoutMs} ms; killed` };
  const code = outcome.exitCode;
  if (code === signalExit(sigxcpu)) return { status: 'TLE', detail: 'CPU time limit (SIGXCPU)' };
  if (code !== 0 && memoryPattern.test(outcome.stderr)) {
    return { status: 'MLE', detail: lastLine(outcome.stderr) || `exit ${code}` };
  }
  if (code === signalExit(sigxfsz) || (code !== 0 && /File too large|EFBIG/.test(outcome.stderr))) {
    return { status: 'OLE', detail: 'file size limit' };
  }
  if (code === signalExit(sigkill)) {
    // The CPU hard limit (only reached when SIGXCPU is ignored), or the program killed itself.
    return { status: 'RE', detail: 'killed by SIGKILL' };
  }
  if (code !== 0) {
    const why = lastLine(outcome.stderr);
    return {
      status: 'RE',
      detail: why ? `exit ${code ?? outcome.signal}: ${why}` : `exit ${code ?? outcome.signal}`,
    };
  }
  if (test.kind === 'stdio') {
    return compareOutput(outcome.stdout, test.output, options.mode, options.tolerance)
      ? { status: 'AC' }
      : { status: 'WA', detail: `wrong output (got ${preview(outcome.stdout)})` };
  }
  let result: unknown;
  try {
    result = JSON.parse(outcome.stdout);
  } catch {
    return { status: 'RE', detail: `function result is not JSON (got ${preview(outcome.stdout)})` };
  }
  return compareJson(result, test.expected, options.mode, options.tolerance)
    ? { status: 'AC' }
    : { status: 'WA', detail: `wrong result (got ${preview(outcome.stdout)})` };
}

// Only the start of the output is cleaned for the preview: `printable` over a whole 1 MiB output of escape
// sequences took 160–500 ms, for 60 characters shown.
const previewScanChars = 4096;

function preview(text: string): string {
  const clean = printable(text.length > previewScanChars ? text.slice(0, previewScanChars) : text);
  const cut = clean.length > 60 || text.length > previewScanChars;
  return JSON.stringify(cut ? `${clean.slice(0, 60)}…` : clean);
}
