// Python as a tool (issue 30): the call's code runs in the code-tests sandbox (src/rewards/code-tests/
// sandbox.ts: bubblewrap as an unprivileged user, no network, seccomp, rlimits, a wall-clock timer and a
// memory watchdog; one fresh sandbox per call), and its standard output is the tool's answer. A program
// that fails, is killed or prints too much is a tool error saying so (the last line of stderr, the
// signal, the limit), shown to the policy. When the sandbox cannot run here the tool refuses at creation
// (SandboxUnavailableError, probe.ts): there is no unsandboxed fallback.
import { z } from 'zod';
import { parseCodeTestsOptions } from '../../rewards/code-tests/options.ts';
import { assertSandbox } from '../../rewards/code-tests/probe.ts';
import { runInSandbox, type SandboxConfig, type SandboxLimits } from '../../rewards/code-tests/sandbox.ts';
import { defineTool, type Tool } from './define.ts';

/** What the tool's sandbox may use per call (defaults: 5 s, 256 MiB, 16 processes, 64 KiB of output). */
export interface PythonToolOptions {
  limits?: Partial<SandboxLimits>;
  /** Interpreter and helper paths (defaults: the code-tests reward's, Debian's). */
  config?: Partial<SandboxConfig>;
}

/** The code-tests reward's default paths (options.ts), so both use the same sandbox. */
function defaultConfig(): SandboxConfig {
  const { bwrapPath, prlimitPath, pythonPath, nodePath } = parseCodeTestsOptions({});
  return { bwrapPath, prlimitPath, pythonPath, nodePath };
}

const defaultLimits: SandboxLimits = {
  timeoutMs: 5000,
  memoryMb: 256,
  maxProcesses: 16,
  maxOutputBytes: 64 * 1024,
  maxFileBytes: 1024 * 1024,
  tmpfsBytes: 8 * 1024 * 1024,
};

/** The `python` tool; throws SandboxUnavailableError when the sandbox cannot run here. */
export function pythonTool(options: PythonToolOptions = {}): Tool {
  const config = { ...defaultConfig(), ...options.config };
  const limits = { ...defaultLimits, ...options.limits };
  assertSandbox(config);
  return defineTool({
    name: 'python',
    description:
      'Runs a Python 3 program in a sandbox (no network, no files kept) and answers with what it prints.',
    input: z.object({ code: z.string().min(1).max(8000) }).strict(),
    fromText: (text) => ({ code: text }),
    run: async ({ code }) => {
      const entry = '/sandbox/main.py';
      const outcome = await runInSandbox(
        { language: 'python', files: [{ path: entry, content: code }], entry, stdin: '', limits },
        config,
      );
      if (outcome.timedOut) throw new Error(`the program ran past ${limits.timeoutMs} ms`);
      if (outcome.memoryExceededMb !== null)
        throw new Error(`the program used more than ${limits.memoryMb} MiB`);
      if (outcome.outputExceeded)
        throw new Error(`the program printed more than ${limits.maxOutputBytes} bytes`);
      if (outcome.exitCode !== 0) {
        const last = outcome.stderr.trim().split('\n').at(-1) ?? '';
        throw new Error(outcome.signal ? `killed by ${outcome.signal}` : `exit ${outcome.exitCode}: ${last}`);
      }
      return outcome.stdout.trimEnd();
    },
  });
}
