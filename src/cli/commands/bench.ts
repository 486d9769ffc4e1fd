// `curricula bench <what>`: performance benchmarks. Each benchmark is a subcommand registered from
// `benchSubcommands`; add `bench train`, `bench rewards`, … by appending a register function there.
import type { Command } from 'commander';
import { parseBenchConfigs, policyBenchConfigs } from '../../bench/policy-bench-configs.ts';
import { parseThreadList } from '../../bench/torch-sweep.ts';
import { UserError } from '../../core/errors.ts';
import { shortInput } from '../../core/quote-input.ts';
import {
  type EngineThreads,
  engineThreadsSchema,
  MAX_ENGINE_THREADS,
  parseWorkersList,
  type TrainEngine,
  trainEngineSchema,
} from '../../policy/parallel-options.ts';
import { nonNegativeInteger, positiveInteger } from '../parse-options.ts';
import { registerRemoteBench } from './bench-remote.ts';

function describeConfigs(): string {
  return Object.entries(policyBenchConfigs)
    .map(
      ([name, c]) =>
        `${name} (d${c.dModel}, ${c.layers} layers, ${c.heads} heads, context ${c.contextLength})`,
    )
    .join(', ');
}

function registerPolicyBench(bench: Command): void {
  bench
    .command('policy')
    .summary('embedded policy training and sampling throughput')
    .description(
      'embedded policy throughput: training step (forward + backward + Adam) and KV-cached sampling ' +
        'tokens/s (medians) for each --workers count, peak RSS, and the same two in PyTorch when torch is installed, swept over torch × ' +
        'OpenBLAS threads with ratios against the best cell; --roofline adds peak and achieved GFLOP/s per phase',
    )
    .option('--configs <list>', `comma-separated model sizes: ${describeConfigs()}`, 'small,base')
    .option(
      '--workers <list>',
      "comma-separated worker counts to measure (policy.workers: 1 = in process, N ≥ 2 = N worker threads, 'auto' = one per core)",
      '1',
    )
    .option(
      '--repeats <n>',
      'timed repetitions per measurement (median reported)',
      positiveInteger('--repeats'),
      5,
    )
    .option('--warmup <n>', 'untimed repetitions before timing', nonNegativeInteger('--warmup'), 2)
    .option(
      '--train-batch <n>',
      'full-context sequences per training step',
      positiveInteger('--train-batch'),
      8,
    )
    .option(
      '--sample-batch <n>',
      'rows sampled together (8 prompts × n)',
      positiveInteger('--sample-batch'),
      64,
    )
    .option('--python <path>', 'Python interpreter with PyTorch for the baseline', '/usr/bin/python3')
    .option(
      '--torch-threads <list>',
      'torch.set_num_threads values to sweep (OMP_NUM_THREADS follows)',
      '1,2',
    )
    .option('--blas-threads <list>', 'OPENBLAS_NUM_THREADS values to sweep', '1,2')
    .option('--no-torch', 'skip the PyTorch baseline')
    .option(
      '--engine <name>',
      "our policy.engine: tfjs (the tfjs graph) or native (native/model.c's whole forward and backward, native/model-decode.c's sampling)",
      'tfjs',
    )
    .option(
      '--engine-threads <n|auto>',
      "with --engine native: policy.threads, the threads of each worker's forward and backward (auto = cores per worker)",
      'auto',
    )
    .option(
      '--roofline',
      'also measure peak GFLOP/s (tfjs-wasm; OpenBLAS via torch) and achieved GFLOP/s per phase',
    )
    .option('--json', 'print only the result as JSON on stdout (progress still goes to stderr)')
    .action(async (options) => {
      const configs = parseBenchConfigs(options.configs);
      const workers = parseWorkersList(options.workers);
      const torchThreads = parseThreadList(options.torchThreads, '--torch-threads');
      const blasThreads = parseThreadList(options.blasThreads, '--blas-threads');
      const { runPolicyBench } = await import('../../bench/policy-bench.ts');
      const { formatPolicyBench } = await import('../../bench/format-policy-bench.ts');
      const result = await runPolicyBench({
        configs,
        workers,
        repeats: options.repeats,
        warmup: options.warmup,
        trainBatch: options.trainBatch,
        sampleBatch: options.sampleBatch,
        python: options.torch ? options.python : null,
        torchThreads,
        blasThreads,
        roofline: Boolean(options.roofline),
        engine: parseEngine(options.engine),
        engineThreads: parseEngineThreads(options.engineThreads),
        onProgress: (line) => console.error(line),
      });
      console.log(options.json ? JSON.stringify(result, null, 2) : formatPolicyBench(result));
    });
}

function registerTrainBench(bench: Command): void {
  bench
    .command('train')
    .summary('time of a whole RL step, and its non-model share')
    .description(
      'whole RL step on a fresh embedded model: median step time, tokens/s, and the share of the step outside model compute (target < 5%)',
    )
    .option('--preset <name>', 'model size: tiny, small or base', 'small')
    .option('--steps <n>', 'timed steps (medians reported)', positiveInteger('--steps'), 5)
    .option('--warmup <n>', 'untimed steps first', nonNegativeInteger('--warmup'), 1)
    .option('--batch-size <n>', 'problems per step', positiveInteger('--batch-size'), 16)
    .option('--group-size <n>', 'samples per problem', positiveInteger('--group-size'), 8)
    .option('--pool-size <n>', 'problems in the selector pool', positiveInteger('--pool-size'), 2000)
    .option('--selector <name>', 'task selector', 'uniform')
    .option(
      '--workers <list>',
      "comma-separated policy.workers counts, measured side by side with alternating steps (e.g. 1,2: the speed-up of 2 workers); 'auto' = one per core, 1 = in process",
      'auto',
    )
    .option(
      '--engine <name>',
      'policy.engine of every count: tfjs or native (threads auto: cores per worker)',
      'tfjs',
    )
    .option(
      '--engine-threads <n|auto>',
      'with --engine native: policy.threads of every count (auto = cores per worker; 1 measures 2 workers against 1 worker on one core)',
      'auto',
    )
    .option('--no-ceiling', 'skip the two-core ceiling (core contention) measured before the steps')
    .option('--json', 'print only the result as JSON on stdout (progress still goes to stderr)')
    .action(async (options) => {
      if (!['tiny', 'small', 'base'].includes(options.preset)) {
        throw new UserError(`unknown --preset '${options.preset}'; known: tiny, small, base`);
      }
      const workers = parseWorkersList(options.workers);
      const { formatTrainBench, runTrainBench } = await import('../../bench/train-bench.ts');
      const result = await runTrainBench({
        preset: options.preset,
        steps: options.steps,
        warmup: options.warmup,
        batchSize: options.batchSize,
        groupSize: options.groupSize,
        poolSize: options.poolSize,
        selector: options.selector,
        engine: parseEngine(options.engine),
        engineThreads: parseEngineThreads(options.engineThreads),
        ...(options.ceiling === false ? { ceiling: false } : {}),
        workers,
        onProgress: (line) => console.error(line),
      });
      console.log(options.json ? JSON.stringify(result, null, 2) : formatTrainBench(result));
    });
}

function registerRewardsBench(bench: Command): void {
  bench
    .command('rewards')
    .summary('reward throughput: math-answer and code-tests')
    .description(
      'reward throughput: math-answer verifications/s with p50/p99 latency (target ≥ 2,000/s), and the code-tests sandbox overhead per run (median, p95) with short Python tests/s (target ≥ 20/s); with --only judge-score, a judge served in process: verdicts/s, latency, agreement with the truth, cache hits and the reward share of an RL step (docs/cli.md)',
    )
    .option('--only <name>', 'run one of: math-answer, code-tests, judge-score (default: the first two)')
    .option(
      '--judge-checkpoint <dir>',
      'judge-score: the checkpoint served as the judge',
      'examples/checkpoints/constraints-judge',
    )
    .option('--judge-items <n>', 'judge-score: completions judged', positiveInteger('--judge-items'), 64)
    .option('--items <n>', 'math-answer verifications timed', positiveInteger('--items'), 4000)
    .option(
      '--completions <n>',
      'code-tests completions scored (8 tests each)',
      positiveInteger('--completions'),
      16,
    )
    .option('--json', 'print only the result as JSON on stdout')
    .action(async (options) => {
      const known = ['math-answer', 'code-tests', 'judge-score'];
      if (options.only !== undefined && !known.includes(options.only)) {
        throw new UserError(`unknown --only '${options.only}'; known: ${known.join(', ')}`);
      }
      const result: Record<string, unknown> = {};
      const runs = (name: string) =>
        options.only === undefined ? name !== 'judge-score' : options.only === name;
      if (runs('math-answer')) {
        const { benchMathAnswer } = await import('../../bench/math-answer-bench.ts');
        console.error('math-answer: timing verifications…');
        result['math-answer'] = await benchMathAnswer({ items: options.items });
      }
      if (runs('judge-score')) {
        const { benchJudge } = await import('../../bench/judge-bench.ts');
        console.error('judge-score: timing verdicts, the cache and RL steps…');
        result['judge-score'] = await benchJudge({
          checkpoint: options.judgeCheckpoint,
          items: options.judgeItems,
        });
      }
      if (runs('code-tests')) {
        const { benchCodeTests } = await import('../../bench/code-tests-bench.ts');
        console.error('code-tests: timing sandboxed runs…');
        result['code-tests'] = await benchCodeTests({ completions: options.completions });
      }
      if (options.json) {
        console.log(JSON.stringify(result, null, 2));
        return;
      }
      const math = result['math-answer'] as
        | { verificationsPerSecond: number; latencyP50Ms: number; latencyP99Ms: number }
        | undefined;
      if (math) {
        console.log(
          `math-answer: ${Math.round(math.verificationsPerSecond)} verifications/s (p50 ${math.latencyP50Ms.toFixed(2)} ms, p99 ${math.latencyP99Ms.toFixed(2)} ms)`,
        );
      }
      const judge = result['judge-score'] as
        | import('../../bench/judge-bench.ts').JudgeBenchResult
        | undefined;
      if (judge) {
        console.log(
          `judge-score: ${judge.verdictsPerSecond.toFixed(1)} verdicts/s (p50 ${judge.latencyMs.p50.toFixed(0)} ms, p99 ${judge.latencyMs.p99.toFixed(0)} ms, ${judge.failures}/${judge.items} malformed); vs the truth: accuracy ${(100 * judge.agreement.accuracy).toFixed(1)}%, false positives ${(100 * judge.agreement.falsePositiveRate).toFixed(1)}% of FAILs; cached: ${(100 * judge.cache.hitRate).toFixed(0)}% hits, ${Math.round(judge.cache.verdictsPerSecond)} verdicts/s; reward share of an RL step ${(100 * judge.rlStep.judgeRewardShare).toFixed(1)}% (verifier ${(100 * judge.rlStep.verifierRewardShare).toFixed(1)}%)`,
        );
      }
      const code = result['code-tests'] as
        | { testsPerSecond: number; overhead: { medianMs: number; p95Ms: number }; passRate: number }
        | undefined;
      if (code) {
        console.log(
          `code-tests: ${code.testsPerSecond.toFixed(1)} short Python tests/s; sandbox overhead median ${code.overhead.medianMs.toFixed(1)} ms, p95 ${code.overhead.p95Ms.toFixed(1)} ms (pass rate ${code.passRate})`,
        );
      }
    });
}

function registerSelectorsBench(bench: Command): void {
  bench
    .command('selectors')
    .summary('select + observe cost of every task selector')
    .description(
      'select + observe cost per step of every task selector on a large pool (goal: < 1% of an RL step)',
    )
    .option('--pool-size <n>', 'problems in the pool', positiveInteger('--pool-size'), 100_000)
    .option('--steps <n>', 'timed steps per selector (mean reported)', positiveInteger('--steps'), 20)
    .option('--batch-size <n>', 'problems per step', positiveInteger('--batch-size'), 128)
    .option('--names <list>', 'comma-separated selector names (default: all)')
    .option('--json', 'print only the result as JSON on stdout')
    .action(async (options) => {
      const { benchmarkSelectors } = await import('../../bench/selector-bench.ts');
      const results = benchmarkSelectors({
        poolSize: options.poolSize,
        steps: options.steps,
        batchSize: options.batchSize,
        names: options.names?.split(',').map((name: string) => name.trim()),
      });
      if (options.json) {
        console.log(JSON.stringify(results, null, 2));
        return;
      }
      console.log(
        `pool ${options.poolSize}, batch ${options.batchSize}: milliseconds per select + observe (wall / CPU)`,
      );
      for (const result of [...results].sort((a, b) => b.microsecondsPerStep - a.microsecondsPerStep)) {
        const wall = (result.microsecondsPerStep / 1000).toFixed(2).padStart(8);
        const cpu = (result.cpuMicrosecondsPerStep / 1000).toFixed(2).padStart(8);
        console.log(`  ${result.name.padEnd(18)} ${wall}  ${cpu}`);
      }
    });
}

function registerLossesBench(bench: Command): void {
  bench
    .command('losses')
    .summary('each policy loss against the update step')
    .description(
      "each policy loss's compute() on the demo's RL batch (128 sequences) against the update step it feeds, forwardBackward + optimStep on the demo model, rounds alternating (target: every loss < 2% of the step)",
    )
    .option('--checkpoint <dir>', 'model directory (default: the shipped demo cold start)')
    .option('--rounds <n>', 'timed rounds (medians reported)', positiveInteger('--rounds'), 7)
    .option('--repeats <n>', 'computes of each loss per round', positiveInteger('--repeats'), 20)
    .option('--names <list>', 'comma-separated loss names (default: all)')
    .option('--engine <engine>', 'tfjs or native (default: the default engine of new runs)', parseEngine)
    .option('--threads <n>', 'native engine threads (default: every core)', positiveInteger('--threads'))
    .option('--no-critic', "leave out the GAE critic's values + training step")
    .option('--json', 'print only the result as JSON on stdout')
    .action(async (options) => {
      const { benchLosses } = await import('../../bench/loss-bench.ts');
      const result = await benchLosses({
        checkpoint: options.checkpoint,
        rounds: options.rounds,
        repeats: options.repeats,
        names: options.names?.split(',').map((name: string) => name.trim()),
        engine: options.engine,
        threads: options.threads,
        critic: options.critic,
        onProgress: (line) => console.error(line),
      });
      if (options.json) {
        console.log(JSON.stringify(result, null, 2));
        return;
      }
      console.log(
        `${result.sequences} sequences, ${result.lossTokens} loss tokens; update step (${result.engine}, ${result.threads} threads) ${result.updateMilliseconds.toFixed(1)} ms (median of ${result.rounds}); load ${result.load.loadavg1.toFixed(2)} on ${result.load.cores} cores`,
      );
      for (const row of result.losses) {
        console.log(
          `  ${row.name.padEnd(20)} ${row.milliseconds.toFixed(3).padStart(8)} ms  ${(100 * row.shareOfUpdate).toFixed(2).padStart(6)}% of the update`,
        );
      }
      console.log(`worst: ${(100 * result.worstShare).toFixed(2)}% (target < 2%)`);
      if (result.critic) {
        console.log(
          `critic (tfjs): values ${result.critic.valuesMilliseconds.toFixed(1)} ms + training step ${result.critic.trainMilliseconds.toFixed(1)} ms = ${result.critic.ratioToUpdate.toFixed(2)}× the update step`,
        );
      }
    });
}

/** Every `bench` subcommand, in the order `curricula bench --help` lists them. */
const benchSubcommands: ((bench: Command) => void)[] = [
  registerPolicyBench,
  registerTrainBench,
  registerRewardsBench,
  registerSelectorsBench,
  registerLossesBench,
  registerRemoteBench,
];

export function register(program: Command): void {
  const bench = program
    .command('bench')
    .summary('performance benchmarks, one subcommand each')
    .description(
      'performance benchmarks, one subcommand each (policy, train, rewards, selectors, losses, remote)',
    );
  for (const registerSubcommand of benchSubcommands) registerSubcommand(bench);
}

/** --engine: tfjs or native (a UserError naming the option otherwise). */
function parseEngine(value: string): TrainEngine {
  const parsed = trainEngineSchema.safeParse(value);
  if (parsed.success) return parsed.data;
  throw new UserError(`--engine must be tfjs or native, got '${shortInput(value)}'`);
}

function parseEngineThreads(value: string): EngineThreads {
  const parsed = engineThreadsSchema.safeParse(value === 'auto' ? value : Number(value));
  if (parsed.success && (value === 'auto' || /^\d+$/.test(value))) return parsed.data;
  throw new UserError(
    `--engine-threads must be 'auto' or an integer from 1 to ${MAX_ENGINE_THREADS}, got '${shortInput(value)}'`,
  );
}
