// `curricula bench remote`: the remote protocols under load, issue 11's two targets. Parts (`--only`;
// without it, both in turn):
// - openai: N concurrent sampling requests against `curricula serve --openai` started in this process
//   (src/bench/serve-bench.ts);
// - tinker: an RL step driven over the Tinker protocol (protobuf) against `curricula serve --tinker` in
//   this process vs the same step in process, alternating: overhead and metric agreement
//   (src/bench/tinker-step-bench.ts).
import type { Command } from 'commander';
import { UserError } from '../../core/errors.ts';
import { Registry } from '../../core/registry.ts';
import { parseWorkersOption } from '../../policy/parallel-options.ts';
import { nonNegativeInteger, positiveInteger } from '../parse-options.ts';
import { createProgress } from '../progress.ts';

interface RemoteBenchPart {
  /** Runs the part; returns its JSON result and its human-readable lines. */
  run(options: Record<string, any>, modelPath: string): Promise<{ result: unknown; text: string }>;
}

const openai: RemoteBenchPart = {
  run: async (options, modelPath) => {
    const { benchOpenAiServe } = await import('../../bench/serve-bench.ts');
    const progress = createProgress('requests', options.requests, {
      quiet: options.quiet,
      unit: 'request',
    });
    const result = await benchOpenAiServe({
      checkpoint: modelPath,
      requests: options.requests,
      maxTokens: options.maxTokens,
      workers: options.workers,
      onProgress: (done) => progress.update(done),
    });
    progress.stop();
    const { latencyMs: l } = result;
    const lines = [
      `openai: ${result.requests} concurrent requests, ${result.errors} errors, ${result.wallSeconds.toFixed(2)} s; latency p50 ${l.p50.toFixed(0)} ms, p90 ${l.p90.toFixed(0)} ms, p99 ${l.p99.toFixed(0)} ms, max ${l.max.toFixed(0)} ms; ${Math.round(result.tokensPerSecond)} completion tokens/s in ${result.sampleCalls} sample calls; peak RSS ${Math.round(result.peakRssMB)} MB`,
      ...result.errorSamples.map((message) => `  error: ${message}`),
    ];
    return { result, text: lines.join('\n') };
  },
};

const tinker: RemoteBenchPart = {
  run: async (options, modelPath) => {
    const { formatTinkerBench, runTinkerBench } = await import('../../bench/tinker-step-bench.ts');
    const result = await runTinkerBench({
      checkpoint: modelPath,
      steps: options.steps,
      warmup: options.warmup,
      batchSize: options.batchSize,
      groupSize: options.groupSize,
      maxTokens: options.stepMaxTokens,
      seed: options.seed,
      server: options.server,
      onProgress: options.quiet ? undefined : (line) => console.error(line),
    });
    return { result, text: formatTinkerBench(result) };
  },
};

const parts = new Registry<RemoteBenchPart>('bench remote part', (registry) =>
  registry.register('openai', openai).register('tinker', tinker),
);

export function registerRemoteBench(bench: Command): void {
  bench
    .command('remote')
    .summary('OpenAI and Tinker protocol overhead, on loopback')
    .description(
      'remote protocols: openai = --requests concurrent /v1/completions requests against curricula serve --openai (errors, latency p50/p90/p99, tokens/s); tinker = an RL step over the Tinker protocol vs in process, alternating (overhead, metric agreement); servers in process on loopback',
    )
    .option('--only <part>', `run one part: ${parts.names().join(', ')} (default: all)`)
    .option(
      '--checkpoint <dir>',
      'run, checkpoint or model directory to serve (and, for tinker, to train from)',
      'examples/checkpoints/demo-cold',
    )
    .option('--requests <n>', 'openai: concurrent requests', positiveInteger('--requests'), 200)
    .option('--max-tokens <n>', 'openai: max_tokens of each request', positiveInteger('--max-tokens'), 16)
    .option(
      '--workers <n|auto>',
      'openai: policy.workers of the served model (1 = in process)',
      parseWorkersOption,
      1,
    )
    .option('--steps <n>', 'tinker: timed RL steps', positiveInteger('--steps'), 5)
    .option('--warmup <n>', 'tinker: untimed steps first', nonNegativeInteger('--warmup'), 1)
    .option('--batch-size <n>', 'tinker: problems per step', positiveInteger('--batch-size'), 16)
    .option('--group-size <n>', 'tinker: samples per problem', positiveInteger('--group-size'), 8)
    .option(
      '--step-max-tokens <n>',
      'tinker: max completion tokens per sample',
      positiveInteger('--step-max-tokens'),
      48,
    )
    .option('--seed <n>', 'tinker: the run seed of both lanes', nonNegativeInteger('--seed'), 11)
    .option(
      '--server <where>',
      'tinker: thread = the server in this process (default); process = a curricula serve child process, as a remote engine',
      'thread',
    )
    .option('--json', 'print only the result as JSON on stdout (progress still goes to stderr)')
    .option('--quiet', 'no progress output')
    .action(async (options) => {
      if (options.only !== undefined && !parts.has(options.only)) {
        throw new UserError(`unknown --only '${options.only}'; known: ${parts.names().join(', ')}`);
      }
      if (!['thread', 'process'].includes(options.server)) {
        throw new UserError(`--server must be thread or process, got '${options.server}'`);
      }
      const names = options.only !== undefined ? [options.only as string] : parts.names();
      const { resolveCheckpoint } = await import('../../runs/resolve-checkpoint.ts');
      const { modelPath } = resolveCheckpoint(options.checkpoint);
      const results: Record<string, unknown> = {};
      for (const name of names) {
        const { result, text } = await parts.get(name).run(options, modelPath);
        results[name] = result;
        if (!options.json) console.log(text);
      }
      if (options.json) console.log(JSON.stringify(results, null, 2));
    });
}
