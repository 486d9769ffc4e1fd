// `curricula bench <what>`: performance benchmarks. Each benchmark is a subcommand registered from
// `benchSubcommands`; add `bench train`, `bench rewards`, … by appending a register function there.
import type { Command } from 'commander';
import { parseBenchConfigs, policyBenchConfigs } from '../../bench/policy-bench-configs.ts';
import { UserError } from '../../core/errors.ts';
import { nonNegativeInteger, positiveInteger } from '../parse-options.ts';

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
    .description(
      'embedded policy throughput: training step (forward + backward + Adam) and KV-cached sampling ' +
        'tokens/s (medians), peak RSS, and the same training step in PyTorch for a ratio when torch is installed',
    )
    .option('--configs <list>', `comma-separated model sizes: ${describeConfigs()}`, 'small,base')
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
    .option('--torch-threads <n>', 'PyTorch CPU threads', positiveInteger('--torch-threads'), 2)
    .option('--no-torch', 'skip the PyTorch baseline')
    .option('--json', 'print only the result as JSON on stdout (progress still goes to stderr)')
    .action(async (options) => {
      const { runPolicyBench } = await import('../../bench/policy-bench.ts');
      const { formatPolicyBench } = await import('../../bench/format-policy-bench.ts');
      const result = await runPolicyBench({
        configs: parseBenchConfigs(options.configs),
        repeats: options.repeats,
        warmup: options.warmup,
        trainBatch: options.trainBatch,
        sampleBatch: options.sampleBatch,
        python: options.torch ? options.python : null,
        torchThreads: options.torchThreads,
        onProgress: (line) => console.error(line),
      });
      console.log(options.json ? JSON.stringify(result, null, 2) : formatPolicyBench(result));
    });
}

function registerTrainBench(bench: Command): void {
  bench
    .command('train')
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
    .option('--json', 'print only the result as JSON on stdout (progress still goes to stderr)')
    .action(async (options) => {
      if (!['tiny', 'small', 'base'].includes(options.preset)) {
        throw new UserError(`unknown --preset '${options.preset}'; known: tiny, small, base`);
      }
      const { formatTrainBench, runTrainBench } = await import('../../bench/train-bench.ts');
      const result = await runTrainBench({
        preset: options.preset,
        steps: options.steps,
        warmup: options.warmup,
        batchSize: options.batchSize,
        groupSize: options.groupSize,
        poolSize: options.poolSize,
        selector: options.selector,
        onProgress: (line) => console.error(line),
      });
      console.log(options.json ? JSON.stringify(result, null, 2) : formatTrainBench(result));
    });
}

/** Every `bench` subcommand, in the order `curricula bench --help` lists them. */
const benchSubcommands: ((bench: Command) => void)[] = [registerPolicyBench, registerTrainBench];

export function register(program: Command): void {
  const bench = program
    .command('bench')
    .description('performance benchmarks, one subcommand each (policy, train)');
  for (const registerSubcommand of benchSubcommands) registerSubcommand(bench);
}
