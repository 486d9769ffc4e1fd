// `curricula demo` (what `npm start` runs): cold start → RL on a harder mix → before/after table + report.
import type { Command } from 'commander';
import { formatBeforeAfter } from '../../eval/before-after.ts';
import { parseWorkersOption } from '../../policy/parallel-options.ts';
import { demoNextSteps, fromHere } from '../demo-next-steps.ts';
import { integer, positiveInteger } from '../parse-options.ts';
import { createProgress, type Progress } from '../progress.ts';

export function register(program: Command): void {
  program
    .command('demo')
    .summary('cold start, RL, before/after table and report')
    .description('the main job: cold start, RL on harder problems, held-out before/after table and a report')
    .option('--from-scratch', 'run the pretrain stage instead of using the shipped cold-start checkpoint')
    .option('--steps <n>', 'override the number of RL steps', positiveInteger('--steps'))
    .option('--seed <n>', 'override the RL seed', integer('--seed'))
    .option('--name <name>', 'run name (default: demo)', 'demo')
    .option('--runs-dir <dir>', 'where runs go', 'runs')
    .option(
      '--overwrite',
      'replace an existing run of the same name (default for demo runs; only a run)',
      true,
    )
    .option(
      '--workers <n|auto>',
      'policy.workers for both stages: replicas of the policy in worker threads (default auto = one per core; 1 = in process)',
      parseWorkersOption,
    )
    .option(
      '--policy <url>',
      'run the RL stage through a Tinker-compatible service at tinker://HOST:PORT (e.g. curricula serve --tinker; key: $TINKER_API_KEY)',
    )
    .option('--base-model <name>', 'with --policy: the base model on that service', 'demo-cold')
    .option('--json', 'print {runDir, before, after, wallSeconds, ...} as JSON on stdout')
    .option('--quiet', 'no progress output, and no next-step commands after the table')
    .action(async (options) => {
      const { runDemo, demoPaths } = await import('../../training/demo.ts');
      let progress: Progress | undefined;
      const log = (message: string) => (options.quiet ? undefined : process.stderr.write(`${message}\n`));
      const result = await runDemo({
        fromScratch: options.fromScratch,
        steps: options.steps,
        seed: options.seed,
        name: options.name,
        workers: options.workers,
        ...(options.policy ? { tinker: { url: options.policy, baseModel: options.baseModel } } : {}),
        runsDir: options.runsDir,
        overwrite: options.overwrite,
        // On stderr even with --quiet: it says what is deleted.
        onOverwrite: (message) => process.stderr.write(`${message}\n`),
        onStage: log,
        onTrainStart: (steps) => {
          progress = createProgress('RL', steps, { quiet: options.quiet });
        },
        onStep: (step, metrics) => progress?.update(step, { reward: metrics['reward/mean'] }),
        onEval: (step, summary) => log(`step ${step}: held-out pass@1 ${summary.overall.passAt1.toFixed(3)}`),
      });
      progress?.stop();
      if (options.json) {
        const { beforeSummary: _before, afterSummary: _after, ...compact } = result;
        console.log(JSON.stringify(compact, null, 2));
        return;
      }
      console.log(
        `\nrun: ${result.runDir}  (${result.wallSeconds.toFixed(0)} s, cold start: ${result.coldStart})`,
      );
      console.log(formatBeforeAfter(result.beforeSummary, result.afterSummary));
      if (result.reportPath) console.log(`\nreport: ${result.reportPath}`);
      if (options.quiet) return;
      const coldStart = fromHere(result.coldStart);
      const nextSteps = demoNextSteps({
        runsDir: fromHere(options.runsDir),
        name: options.name,
        runDir: fromHere(result.runDir),
        trainConfig: fromHere(result.trainConfig),
        // The config names the shipped checkpoint relative to the package directory.
        coldStart: coldStart === demoPaths.shippedCheckpoint ? undefined : coldStart,
      });
      console.log(`\n${nextSteps.join('\n')}`);
    });
}
