// `curricula sweep --config X --grid key=v1,v2 --seeds 1,2,3 --out DIR`: every combination of the grid
// × every seed as a `curricula train` run in DIR, at most --concurrency at a time, in a queue that
// survives the sweep's own restart (src/cli/sweep/), then `curricula compare` of the finished runs into
// DIR/compare. Run the same command again to continue a stopped or killed sweep.
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, resolve } from 'node:path';
import { type Command, Option } from 'commander';
import { UserError } from '../../core/errors.ts';
import { distinctList, integer, positiveInteger } from '../parse-options.ts';
import type { SweepQueue } from '../sweep/sweep-queue.ts';

interface SweepCliOptions {
  config: string;
  grid: string[];
  seeds: number[];
  out: string;
  prefix: string;
  set: string[];
  concurrency?: number;
  workers: number;
  retryFailed?: boolean;
  compare: boolean;
  baseline?: string;
  dryRun?: boolean;
  json?: boolean;
}

const collect = (value: string, previous: string[]) => [...previous, value];

export function register(program: Command): void {
  program
    .command('sweep')
    .summary('a grid of train runs × seeds, resumable')
    .description(
      'run every combination of --grid values × --seeds as curricula train runs (a resumable queue in --out, at most --concurrency at a time), then compare the finished runs',
    )
    .requiredOption('-c, --config <yaml>', 'the train config every run starts from')
    .option(
      '--grid <key=v1,v2>',
      'a config key and its values (repeatable: the grid is their product)',
      collect,
      [],
    )
    .addOption(
      new Option('--seeds <list>', 'comma-separated seeds, one run per seed and grid point')
        .argParser(distinctList('--seeds', integer('--seeds'), 'integers'))
        .default([1], '1'),
    )
    .option('--out <dir>', 'the sweep directory: runs, logs/, sweep.json, compare/', 'runs/sweep')
    .option('--prefix <text>', 'prefix of every run name', '')
    .option('--set <path=value>', 'an override for every run (repeatable, as train --set)', collect, [])
    .option(
      '--concurrency <n>',
      'train processes at a time (default: cores ÷ --workers)',
      positiveInteger('--concurrency'),
    )
    .option(
      '--workers <n>',
      'policy.workers of each run (default 1: one core per run)',
      positiveInteger('--workers'),
      1,
    )
    .option('--retry-failed', 'start failed runs again (default: a restart leaves them failed)')
    .option('--no-compare', 'skip curricula compare at the end')
    .option('--baseline <group|run>', 'the comparison baseline (as compare --baseline)')
    .option('--dry-run', 'print the runs and their train arguments; start nothing')
    .addOption(new Option('--json', 'print the result as JSON on stdout'))
    .action(async (options: SweepCliOptions) => sweep(options));
}

async function sweep(options: SweepCliOptions): Promise<void> {
  const { parseGridAxis, sweepRuns } = await import('../sweep/sweep-plan.ts');
  const { lockSweep, openQueue, saveQueue } = await import('../sweep/sweep-queue.ts');
  const { runSweep, trainArgs } = await import('../sweep/run-sweep.ts');
  const config = resolve(options.config);
  if (!existsSync(config)) throw new UserError(`--config ${options.config}: no such file`);
  for (const set of options.set) {
    if (!set.includes('=')) throw new UserError(`--set '${set}': give path=value`);
  }
  const grid = options.grid.map(parseGridAxis);
  const { seeds } = options;
  const runs = sweepRuns(grid, seeds, options.prefix);
  const out = resolve(options.out);
  const request = { config, grid, seeds, prefix: options.prefix, sets: options.set };
  const concurrency =
    options.concurrency ?? Math.max(1, Math.floor(availableParallelism() / options.workers));
  if (options.dryRun) {
    const queue = openQueue(out, request, runs, false);
    const lines = queue.runs.map(
      (entry) =>
        `${entry.name} [${entry.status}]: curricula train ${trainArgs(entry, { out, queue, workers: options.workers }).join(' ')}`,
    );
    console.log(
      options.json ? JSON.stringify({ out, concurrency, runs: queue.runs }, null, 2) : lines.join('\n'),
    );
    return;
  }
  const release = lockSweep(out);
  const controller = new AbortController();
  const stop = () => controller.abort();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  try {
    const queue = openQueue(out, request, runs, options.retryFailed === true);
    saveQueue(out, queue);
    console.error(
      `sweep: ${queue.runs.length} runs in ${out}, ${concurrency} at a time (${options.workers} worker(s) each); ${queue.runs.filter((entry) => entry.status === 'finished').length} already finished`,
    );
    await runSweep({
      out,
      queue,
      concurrency,
      workers: options.workers,
      signal: controller.signal,
      onProgress: (line) => console.error(line),
    });
    if (controller.signal.aborted) {
      console.error('sweep: stopped; run the same command again to continue');
      process.exitCode = 130;
      return;
    }
    await report(out, queue, options);
  } finally {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
    release();
  }
}

/** Compares the finished runs (unless --no-compare), prints the result, and sets the exit code. */
async function report(out: string, queue: SweepQueue, options: SweepCliOptions): Promise<void> {
  const finished = queue.runs.filter((entry) => entry.status === 'finished');
  const failed = queue.runs.filter((entry) => entry.status === 'failed');
  let comparePath: string | undefined;
  if (options.compare && finished.length > 0) {
    const { writeComparison } = await import('../../runs/compare/write-comparison.ts');
    const { withRlDefaults } = await import('../../training/rl/config-defaults.ts');
    const written = await writeComparison(
      finished.map((entry) => join(out, entry.name)),
      { out: join(out, 'compare'), withDefaults: withRlDefaults, baseline: options.baseline },
    );
    comparePath = written.markdownPath;
  }
  const result = {
    out,
    runs: queue.runs.map((entry) => ({
      name: entry.name,
      status: entry.status,
      attempts: entry.attempts,
      runDir: join(out, entry.name),
      log: join(out, 'logs', `${entry.name}.log`),
    })),
    ...(comparePath === undefined ? {} : { compare: comparePath }),
  };
  if (options.json) console.log(JSON.stringify(result, null, 2));
  else {
    console.log(`${finished.length}/${queue.runs.length} runs finished in ${out}`);
    if (comparePath !== undefined) console.log(`comparison: ${comparePath}`);
  }
  if (failed.length > 0) {
    console.error(
      `sweep: ${failed.length} run(s) failed: ${failed.map((entry) => entry.name).join(', ')} (logs in ${join(out, 'logs')}; --retry-failed starts them again)`,
    );
    process.exitCode = 1;
  }
}
