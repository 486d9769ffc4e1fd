// `curricula train --config <yaml>` / `curricula train --resume runs/<name>`: RL fine-tuning.
import type { Command } from 'commander';
import { formatBeforeAfter } from '../../eval/before-after.ts';
import { rlConfigSchema } from '../../training/rl/config.ts';
import { addConfigOverrideOptions, loadConfigWithOverrides } from '../config-options.ts';
import { createProgress } from '../progress.ts';
import { refuseIgnoredResumeOptions, resumedTotalSteps } from '../resume-options.ts';

export function register(program: Command): void {
  const command = program
    .command('train')
    .description('RL fine-tuning (GRPO family) with task selection, guidance and verifiable rewards')
    .option('-c, --config <yaml>', 'train config (see examples/train-*.yaml)')
    .option(
      '--resume <runDir>',
      'continue an RL run from its latest checkpoint with its stored config (--steps N extends it)',
    )
    .option('--overwrite', 'replace an existing run of the same name (only a run, and not one in use)');
  addConfigOverrideOptions(command)
    .option('--no-report', 'skip writing runs/<name>/report/ at the end')
    .option('--json', 'print the result as JSON on stdout')
    .option('--quiet', 'no progress output')
    .action(async (options) => {
      refuseIgnoredResumeOptions('train', options);
      const config = options.config ? loadConfigWithOverrides(rlConfigSchema, options) : null;
      const { train } = await import('../../training/rl/train.ts');
      const total = options.resume
        ? resumedTotalSteps(options.resume, options.steps ?? config?.train.steps)
        : (config?.train.steps ?? 0);
      const progress = createProgress('train', total, { quiet: options.quiet || total === 0 });
      const result = await train(config, {
        resume: options.resume,
        steps: options.resume ? options.steps : undefined,
        overwrite: options.overwrite,
        // On stderr even with --quiet: it says what is deleted.
        onOverwrite: (message) => (options.quiet ? console.error(message) : progress.log(message)),
        // On stderr even with --quiet or --json: it is about the run's settings, not its progress.
        onAdvice: (message) =>
          options.quiet ? console.error(`warning: ${message}`) : progress.log(`warning: ${message}`),
        onStep: (step, metrics) =>
          progress.update(step, { reward: metrics['reward/mean'], 's/step': metrics['perf/step_seconds'] }),
        onEval: (step, summary) =>
          progress.log(`step ${step}: held-out pass@1 ${summary.overall.passAt1.toFixed(3)}`),
      });
      progress.stop();
      let reportPath: string | undefined;
      if (options.report) {
        const { writeReport } = await import('../../runs/report/index.ts');
        reportPath = (await writeReport(result.runDir)).reportPath;
      }
      if (options.json) {
        console.log(JSON.stringify({ ...result, reportPath }, null, 2));
        return;
      }
      console.log(`run: ${result.runDir} (${result.steps} steps, ${result.wallSeconds.toFixed(0)} s)`);
      console.log(formatBeforeAfter(result.initialEval, result.finalEval));
      if (reportPath) console.log(`report: ${reportPath}`);
    });
}
