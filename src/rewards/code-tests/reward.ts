// The `code-tests` reward: extracts a Python or JavaScript program from a completion, runs it against the
// problem's stdin/stdout and function-call tests in bubblewrap sandboxes (a pool of them), and scores the
// share of tests passed with TAROT's tiered partial credit.
//
// Follows TAROT (Park et al., arXiv 2602.15449; deep-diver/TAROT custom_rewards) for the four test tiers,
// their weights and schedules, and LiveCodeBench (lcb_runner/evaluation/testing_util.py) for comparison
// and call-based tests. Deviations: the reward is normalised to [0, 1] (see tiers.ts); the program may also
// come from an untagged fence or a fence-free completion (extract.ts); TAROT runs `python3 -c` in an E2B
// cloud sandbox and LCB `exec`s in-process under `reliability_guard` — here each test is a fresh local
// bubblewrap sandbox (sandbox.ts), and no code ever runs when that sandbox is unavailable. One answer's
// tests run one after another, never at the same time (see evaluateOpen); answers share the pool.
//
// components: pass_rate (unweighted, tests that ran), tier/<tier> (per-tier pass rate, tiered problems
// only: TAROT's capability-conditioned view, logged as reward/tier/<tier>), fenced (1 when the code came
// from a fenced block).
import type { Problem } from '../../core/problem.ts';
import type { Reward, RewardInput, RewardResult } from '../../core/reward.ts';
import { defineReward } from '../registry.ts';
import { type ExtractedProgram, extractProgram } from './extract.ts';
import { prepareRun } from './harness.ts';
import { judge, type TestStatus, type Verdict } from './judge.ts';
import { Limiter } from './limiter.ts';
import { type CodeTestsOptions, codeTestsOptionsSchema, parseCodeTestsOptions } from './options.ts';
import { printable } from './printable.ts';
import { assertSandbox, probeInterpreter, SandboxUnavailableError } from './probe.ts';
import { runInSandbox, type SandboxConfig, type SandboxLimits } from './sandbox.ts';
import { type ProblemTests, parseProblemTests, type TestCase, type Tier } from './schema.ts';
import { startSupervisor } from './supervisor.ts';
import { aggregateTiers, allowedTiers, type TierWeights, weightSets } from './tiers.ts';

/**
 * How long a test slot stays held after a run that had to be killed, before the answer's next test:
 * processes that had closed their stdout and stderr were measured alive 20-45 ms after such a run
 * resolved (4 busy children, loaded 2-core machine).
 */
const killedRunGraceMs = 200;

export interface TestReport extends Verdict {
  tier: Tier;
  /** Index of the test within its tier. */
  index: number;
  wallMs: number;
}

export interface CodeTestsReport {
  result: RewardResult;
  program: ExtractedProgram;
  tests: TestReport[];
}

export class CodeTestsReward implements Reward {
  readonly name = 'code-tests';
  readonly options: CodeTestsOptions;
  private readonly sandbox: SandboxConfig;
  private readonly limiter: Limiter;
  private readonly weights: TierWeights;
  private closed = false;
  private readonly inFlight = new Set<Promise<unknown>>();

  /** Throws ConfigError on bad options and SandboxUnavailableError when bubblewrap cannot run here. */
  constructor(options: unknown = {}) {
    this.options = parseCodeTestsOptions(options);
    const { bwrapPath, prlimitPath, pythonPath, nodePath } = this.options;
    this.sandbox = { bwrapPath, prlimitPath, pythonPath, nodePath };
    assertSandbox(this.sandbox);
    // The watchdog thread takes tens of milliseconds to start: not on the first run's clock.
    startSupervisor();
    this.limiter = new Limiter(this.options.concurrency);
    const { weights } = this.options;
    this.weights = typeof weights === 'string' ? weightSets[weights] : weights;
  }

  async score(inputs: readonly RewardInput[]): Promise<RewardResult[]> {
    // Validate every problem first: a malformed spec fails the batch before any code runs.
    const specs = inputs.map((input) => parseProblemTests(input.problem));
    const reports = await Promise.all(
      inputs.map((input, index) => this.evaluateParsed(input.completion, specs[index], input.step)),
    );
    return reports.map((report) => report.result);
  }

  /** Scores one completion and returns the per-test verdicts as well. */
  evaluate(problem: Problem, completion: string, step?: number): Promise<CodeTestsReport> {
    return this.evaluateParsed(completion, parseProblemTests(problem), step);
  }

  /** Refuses new work and waits for the sandboxes still running (each ends within its time limit). */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.allSettled([...this.inFlight]);
  }

  private evaluateParsed(completion: string, spec: ProblemTests, step?: number): Promise<CodeTestsReport> {
    if (this.closed) return Promise.reject(new Error('code-tests reward is closed'));
    const work = this.evaluateOpen(completion, spec, step);
    this.inFlight.add(work);
    const forget = () => this.inFlight.delete(work);
    work.then(forget, forget);
    return work;
  }

  private async evaluateOpen(
    completion: string,
    spec: ProblemTests,
    step?: number,
  ): Promise<CodeTestsReport> {
    const program = extractProgram(completion, spec.language);
    const allowed = allowedTiers(this.options.schedule, this.progress(step));
    const planned: { tier: Tier; index: number; test: TestCase }[] = [];
    for (const [tier, tests] of spec.groups) {
      if (spec.tiered && !allowed.has(tier)) continue;
      tests.forEach((test, index) => {
        planned.push({ tier, index, test });
      });
    }
    if (planned.length === 0) {
      const reason = `no tests in the tiers allowed now (${[...allowed].join(', ')})`;
      return { program, tests: [], result: { reward: 0, components: { pass_rate: 0, fenced: 0 }, reason } };
    }
    if (program.code === null) {
      // Every planned test counts as failed, so that per-tier rates stay comparable across completions.
      const tests = planned.map(({ tier, index }) => ({ tier, index, status: 'SKIP' as const, wallMs: 0 }));
      const result = this.summarise(spec, program, tests);
      return {
        program,
        tests,
        result: { ...result, reason: printable(`${program.source}; ${result.reason}`) },
      };
    }
    const interpreter = await probeInterpreter(spec.language, this.sandbox);
    if (!interpreter.ok) throw new SandboxUnavailableError(`code-tests: ${interpreter.reason}`);

    // One answer's tests run strictly one after another, each in a fresh sandbox, never two at once: a
    // test's sandbox is gone (its pid namespace torn down) before the next test's starts. Channels through
    // kernel state that every process shares need both ends alive (a futex wake-up on a page of a shared
    // /usr file: every process maps libc, so shared file mappings cannot be taken away; CPU contention;
    // the per-user pipe quota), and so carry nothing from one test of an answer to the next; what state
    // outlives a sandbox is hidden or denied (sandbox.ts procMasks, seccomp.ts), or measured and listed in
    // docs/rewards/code-tests.md. Different answers still run side by side in the pool (`concurrency`).
    const code = program.code;
    const reports: TestReport[] = [];
    let failed = false;
    for (const { tier, index, test } of planned) {
      if (failed) {
        reports.push({ tier, index, status: 'SKIP', wallMs: 0 });
        continue;
      }
      const { killed, ...verdict } = await this.limiter.run(async () => {
        const run = await this.runTest(spec, code, test);
        // A run we SIGKILLed (time, output, memory) ends when bwrap does; its pid 1 inside dies of
        // --die-with-parent a moment later and takes the namespace with it. Hold the slot a while so that
        // no straggler overlaps the next test. (Exact would be to SIGKILL that pid 1 first and let bwrap
        // reap it: bwrap then exits only once the namespace is empty.)
        if (run.killed) await new Promise((resolve) => setTimeout(resolve, killedRunGraceMs));
        return run;
      });
      reports.push({ tier, index, ...verdict });
      failed = this.options.failFast && verdict.status !== 'AC';
    }
    return { program, tests: reports, result: this.summarise(spec, program, reports) };
  }

  private progress(step: number | undefined): number | undefined {
    const { totalSteps } = this.options;
    return step === undefined || totalSteps === undefined ? undefined : step / totalSteps;
  }

  private async runTest(
    spec: ProblemTests,
    code: string,
    test: TestCase,
  ): Promise<Verdict & { wallMs: number; killed: boolean }> {
    const options = this.options;
    const expectedBytes =
      test.kind === 'stdio' ? Buffer.byteLength(test.output) : JSON.stringify(test.expected ?? null).length;
    const limits: SandboxLimits = {
      timeoutMs: options.timeoutMs,
      memoryMb: options.memoryMb,
      maxProcesses: options.maxProcesses,
      maxOutputBytes: Math.max(options.maxOutputBytes, 2 * expectedBytes + 1024),
      maxFileBytes: options.maxFileBytes,
      tmpfsBytes: options.tmpfsBytes,
    };
    const prepared = prepareRun(spec.language, code, test);
    const outcome = await runInSandbox({ language: spec.language, ...prepared, limits }, this.sandbox);
    const verdict = judge(outcome, test, {
      mode: spec.compare ?? options.compare,
      tolerance: { relTol: options.relTol, absTol: options.absTol },
      timeoutMs: limits.timeoutMs,
      maxOutputBytes: limits.maxOutputBytes,
    });
    return { ...verdict, wallMs: outcome.wallMs, killed: outcome.signal !== null };
  }

  private summarise(
    spec: ProblemTests,
    program: ExtractedProgram,
    reports: readonly TestReport[],
  ): RewardResult {
    const counts = new Map<Tier, { passed: number; total: number }>();
    for (const report of reports) {
      const count = counts.get(report.tier) ?? { passed: 0, total: 0 };
      count.total++;
      if (report.status === 'AC') count.passed++;
      counts.set(report.tier, count);
    }
    const outcomes = [...counts].map(([tier, count]) => ({ tier, ...count }));
    const { aggregate, weighting } = this.options;
    const summary = aggregateTiers(outcomes, spec.tiered, { aggregate, weighting, weights: this.weights });
    const components: Record<string, number> = {
      pass_rate: summary.passRate,
      fenced: program.fenced ? 1 : 0,
    };
    for (const [tier, rate] of Object.entries(summary.tierRates)) components[`tier/${tier}`] = rate;

    const passed = reports.filter((report) => report.status === 'AC').length;
    const tierSummary = spec.tiered
      ? ` (${outcomes.map((o) => `${o.tier} ${o.passed}/${o.total}`).join(', ')})`
      : '';
    const parts = [`passed ${passed}/${reports.length} tests${tierSummary}`];
    const statuses = new Map<TestStatus, number>();
    for (const report of reports) {
      if (report.status !== 'AC') statuses.set(report.status, (statuses.get(report.status) ?? 0) + 1);
    }
    if (statuses.size > 0)
      parts.push(`failures: ${[...statuses].map(([status, n]) => `${status}×${n}`).join(' ')}`);
    const first = reports.find((report) => report.status !== 'AC' && report.status !== 'SKIP');
    if (first) parts.push(`first: ${first.tier}#${first.index} ${first.status} ${first.detail ?? ''}`.trim());
    if (program.code !== null) parts.push(`code: ${program.source}`);
    // The reason quotes the program's output and the completion's fence tags: keep it terminal-safe.
    return { reward: summary.reward, components, reason: printable(parts.join('; ')) };
  }
}

/** Builds the code-tests reward from its options (the registry entry, codeTestsReward below). */
export function createCodeTestsReward(options: unknown): Reward {
  return new CodeTestsReward(options);
}

export const codeTestsReward = defineReward({
  id: 'code-tests',
  description: "runs the extracted program against the problem's tests in sandboxes; tiered partial credit",
  paper: { title: 'TAROT (Park et al.)', arxiv: '2602.15449', code: 'deep-diver/TAROT custom_rewards' },
  optionsSchema: codeTestsOptionsSchema,
  create: createCodeTestsReward,
});
