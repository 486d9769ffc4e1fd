// `curricula bench remote`: the remote protocols under load. Today one part, `openai`: N concurrent
// sampling requests against `curricula serve --openai` started in this process (src/bench/serve-bench.ts).
// The Tinker part (an RL step over HTTP against in process, issue 11) comes with the Tinker client backend.
import type { Command } from 'commander';
import { UserError } from '../../core/errors.ts';
import { parseWorkersOption } from '../../policy/parallel-options.ts';
import { positiveInteger } from '../parse-options.ts';
import { createProgress } from '../progress.ts';

const parts = ['openai'];

export function registerRemoteBench(bench: Command): void {
  bench
    .command('remote')
    .description(
      'remote protocols under load: --requests concurrent /v1/completions requests against curricula serve --openai (in process, loopback): errors, latency p50/p90/p99, tokens/s, server sample calls',
    )
    .option('--only <part>', `run one part: ${parts.join(', ')}`, 'openai')
    .option(
      '--checkpoint <dir>',
      'run, checkpoint or model directory to serve',
      'examples/checkpoints/demo-cold',
    )
    .option('--requests <n>', 'concurrent requests', positiveInteger('--requests'), 200)
    .option('--max-tokens <n>', 'max_tokens of each request', positiveInteger('--max-tokens'), 16)
    .option(
      '--workers <n|auto>',
      'policy.workers of the served model (1 = in process)',
      parseWorkersOption,
      1,
    )
    .option('--json', 'print only the result as JSON on stdout (progress still goes to stderr)')
    .option('--quiet', 'no progress output')
    .action(async (options) => {
      if (!parts.includes(options.only)) {
        throw new UserError(`unknown --only '${options.only}'; known: ${parts.join(', ')}`);
      }
      const { resolveCheckpoint } = await import('../../runs/resolve-checkpoint.ts');
      const { benchOpenAiServe } = await import('../../bench/serve-bench.ts');
      const { modelPath } = resolveCheckpoint(options.checkpoint);
      const progress = createProgress('requests', options.requests, { quiet: options.quiet });
      const result = await benchOpenAiServe({
        checkpoint: modelPath,
        requests: options.requests,
        maxTokens: options.maxTokens,
        workers: options.workers,
        onProgress: (done) => progress.update(done),
      });
      progress.stop();
      if (options.json) {
        console.log(JSON.stringify({ openai: result }, null, 2));
        return;
      }
      const { latencyMs: l } = result;
      console.log(
        `openai: ${result.requests} concurrent requests, ${result.errors} errors, ${result.wallSeconds.toFixed(2)} s; latency p50 ${l.p50.toFixed(0)} ms, p90 ${l.p90.toFixed(0)} ms, p99 ${l.p99.toFixed(0)} ms, max ${l.max.toFixed(0)} ms; ${Math.round(result.tokensPerSecond)} completion tokens/s in ${result.sampleCalls} sample calls; peak RSS ${Math.round(result.peakRssMB)} MB`,
      );
      for (const message of result.errorSamples) console.log(`  error: ${message}`);
    });
}
