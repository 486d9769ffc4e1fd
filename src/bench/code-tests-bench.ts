// Benchmark of the code-tests sandbox: the per-run overhead of bubblewrap (a trivial Python program run
// sequentially inside the sandbox, against the same program spawned bare) and the throughput of short
// Python stdin/stdout tests through the reward's sandbox pool. The `curricula bench` CLI calls this; it
// prints nothing itself. Target from the design notes (reference/verifiers-and-ml.md §2.3): ~19 ms
// overhead per python3 run, ≥ 20 short tests/s on 2 cores.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import type { Problem } from '../core/problem.ts';
import { CodeTestsReward } from '../rewards/code-tests/reward.ts';
import { runInSandbox, type SandboxConfig, type SandboxLimits } from '../rewards/code-tests/sandbox.ts';

export interface BenchOptions {
  /** Sequential runs for the overhead measurement. */
  overheadRuns?: number;
  /** Completions scored in the throughput measurement (each runs `testsPerProblem` tests). */
  completions?: number;
  testsPerProblem?: number;
  /** Sandbox pool size (default: number of cores). */
  concurrency?: number;
  pythonPath?: string;
}

export interface Distribution {
  medianMs: number;
  p95Ms: number;
}

export interface BenchResult {
  /** Trivial python program inside the sandbox, one at a time. */
  sandboxed: Distribution;
  /** The same program spawned without a sandbox. */
  bare: Distribution;
  /** sandboxed − bare, at the median and the 95th percentile. */
  overhead: Distribution;
  /** Short python stdin/stdout tests per second through the reward's pool. */
  testsPerSecond: number;
  tests: number;
  concurrency: number;
  /** Fraction of throughput tests that passed (should be 1; anything else means the bench is broken). */
  passRate: number;
  /**
   * CPU time (user + system, all sandbox processes) per throughput test, from our reaped children's
   * times in /proc/self/stat. Unlike tests/s it barely depends on other load on the machine, so
   * `cores * 1000 / cpuMsPerTest` estimates the throughput of an otherwise idle machine. null off Linux.
   */
  cpuMsPerTest: number | null;
  /** 1-minute load average while the bench ran (tests/s means little when it is far above the cores). */
  loadAverage: number;
}

function quantile(sorted: readonly number[], q: number): number {
  const position = (sorted.length - 1) * q;
  const low = Math.floor(position);
  const high = Math.ceil(position);
  return sorted[low] + (sorted[high] - sorted[low]) * (position - low);
}

function distribution(samples: number[]): Distribution {
  const sorted = [...samples].sort((a, b) => a - b);
  return { medianMs: quantile(sorted, 0.5), p95Ms: quantile(sorted, 0.95) };
}

/** CPU milliseconds used by our reaped descendants (cutime + cstime), or null where /proc is absent. */
function childCpuMs(): number | null {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    // Fields after the parenthesised command name; cutime and cstime are fields 16 and 17 (1-based).
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticksPerSecond = 100; // USER_HZ, fixed at 100 on Linux for /proc
    return ((Number(fields[13]) + Number(fields[14])) * 1000) / ticksPerSecond;
  } catch {
    return null;
  }
}

function bareRun(pythonPath: string, code: string, stdin: string): Promise<number> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(pythonPath, ['-I', '-B', '-c', code], { stdio: ['pipe', 'ignore', 'ignore'] });
    child.stdin.end(stdin);
    child.on('error', reject);
    child.on('close', () => resolve(performance.now() - started));
  });
}

const echoProgram = 'import sys\nprint(sum(map(int, sys.stdin.read().split())))\n';

export async function benchCodeTests(options: BenchOptions = {}): Promise<BenchResult> {
  const overheadRuns = options.overheadRuns ?? 40;
  const completions = options.completions ?? 16;
  const testsPerProblem = options.testsPerProblem ?? 8;
  const pythonPath = options.pythonPath ?? '/usr/bin/python3';
  const reward = new CodeTestsReward({
    ...(options.concurrency ? { concurrency: options.concurrency } : {}),
    pythonPath,
  });
  const config: SandboxConfig = {
    bwrapPath: reward.options.bwrapPath,
    prlimitPath: reward.options.prlimitPath,
    pythonPath,
    nodePath: reward.options.nodePath,
  };
  const { sandboxed, bare } = await measureOverhead(config, overheadRuns);
  const overhead = sandboxed.map((ms, index) => ms - bare[index]);
  const { testsPerSecond, tests, passRate, cpuMsPerTest } = await measureThroughput(
    reward,
    completions,
    testsPerProblem,
  );
  return {
    sandboxed: distribution(sandboxed),
    bare: distribution(bare),
    overhead: distribution(overhead),
    testsPerSecond,
    tests,
    concurrency: reward.options.concurrency,
    passRate,
    cpuMsPerTest,
    loadAverage: loadavg()[0],
  };
}

const benchLimits: SandboxLimits = {
  timeoutMs: 5000,
  memoryMb: 512,
  maxProcesses: 32,
  maxOutputBytes: 1 << 20,
  maxFileBytes: 1 << 20,
  tmpfsBytes: 8 << 20,
};

/** Wall milliseconds of `runs` sandboxed and bare runs of the echo program, alternating, after a warm-up of each. */
async function measureOverhead(
  config: SandboxConfig,
  runs: number,
): Promise<{ sandboxed: number[]; bare: number[] }> {
  const pythonPath = config.pythonPath;
  const sandboxed: number[] = [];
  const bare: number[] = [];
  // One warm-up of each so that page cache and the interpreter probe do not count.
  await bareRun(pythonPath, echoProgram, '1 2');
  for (let run = 0; run <= runs; run++) {
    const outcome = await runInSandbox(
      {
        language: 'python',
        files: [{ path: '/sandbox/solution.py', content: echoProgram }],
        entry: '/sandbox/solution.py',
        stdin: '1 2',
        limits: benchLimits,
      },
      config,
    );
    if (outcome.exitCode !== 0) throw new Error(`bench: sandboxed run failed: ${outcome.stderr.slice(-200)}`);
    const bareMs = await bareRun(pythonPath, echoProgram, '1 2');
    if (run === 0) continue;
    sandboxed.push(outcome.wallMs);
    bare.push(bareMs);
  }
  return { sandboxed, bare };
}

/** The bench's problem: print the sum of two integers, `tests` stdin/stdout tests. */
function sumProblem(tests: number): Problem {
  return {
    id: 'bench/sum',
    task: 'code',
    prompt: 'Print the sum of the integers on stdin.',
    answer: '',
    solution: '',
    category: 'code',
    difficulty: 1,
    params: {},
    metadata: {
      tests: Array.from({ length: tests }, (_, index) => ({
        input: `${index} ${index * 7}\n`,
        output: `${index * 8}\n`,
      })),
      language: 'python',
    },
  };
}

/** Scores `completions` echo solutions through the reward's pool (after one warm-up), then closes it. */
async function measureThroughput(
  reward: CodeTestsReward,
  completions: number,
  testsPerProblem: number,
): Promise<Pick<BenchResult, 'testsPerSecond' | 'tests' | 'passRate' | 'cpuMsPerTest'>> {
  const problem = sumProblem(testsPerProblem);
  const completion = `\`\`\`python\n${echoProgram}\`\`\``;
  const inputs = Array.from({ length: completions }, () => ({ problem, completion }));
  await reward.score(inputs.slice(0, 1));
  const cpuBefore = childCpuMs();
  const started = performance.now();
  const results = await reward.score(inputs);
  const seconds = (performance.now() - started) / 1000;
  const cpuAfter = childCpuMs();
  await reward.close();
  const total = completions * testsPerProblem;
  const passRate =
    results.reduce((sum, result) => sum + (result.components.pass_rate ?? 0), 0) / results.length;
  return {
    testsPerSecond: total / seconds,
    tests: total,
    passRate,
    cpuMsPerTest: cpuBefore === null || cpuAfter === null ? null : (cpuAfter - cpuBefore) / total,
  };
}
