// `curricula pretrain --config <yaml>`: supervised cold start on worked solutions.
import type { Command } from 'commander';
import { ConfigError } from '../../core/errors.ts';
import { formatEvalTable } from '../../eval/format-table.ts';
import { pretrainConfigSchema } from '../../training/pretrain-config.ts';
import { addConfigOverrideOptions, loadConfigWithOverrides } from '../config-options.ts';
import { createProgress } from '../progress.ts';
import { refuseIgnoredResumeOptions, resumedTotalSteps } from '../resume-options.ts';

export function register(program: Command): void {
  const command = program
    .command('pretrain')
    .summary('supervised cold start on worked solutions')
    .description('supervised next-token training on worked solutions (the cold-start stage)')
    .option('-c, --config <yaml>', 'pretrain config (see examples/pretrain-*.yaml)')
    .option(
      '--resume <runDir>',
      'continue a pretrain run from its latest checkpoint with its stored config (--steps N extends it)',
    )
    .option('--overwrite', 'replace an existing run of the same name (only a run, and not one in use)');
  addConfigOverrideOptions(command)
    .option('--json', 'print the result as JSON on stdout')
    .option('--quiet', 'no progress output')
    .action(async (options) => {
      refuseIgnoredResumeOptions('pretrain', options);
      if (!options.config && !options.resume) {
        throw new ConfigError('give a config (--config <yaml>) or a run to resume (--resume <runDir>)');
      }
      const config = options.config ? loadConfigWithOverrides(pretrainConfigSchema, options) : null;
      const { pretrain } = await import('../../training/pretrain.ts');
      const total = options.resume
        ? resumedTotalSteps(options.resume, options.steps ?? config?.train.steps)
        : (config?.train.steps ?? 0);
      const progress = createProgress('pretrain', total, { quiet: options.quiet });
      const result = await pretrain(config, {
        resume: options.resume,
        steps: options.resume ? options.steps : undefined,
        overwrite: options.overwrite,
        // On stderr even with --quiet: it says what is deleted.
        onOverwrite: (message) => (options.quiet ? console.error(message) : progress.log(message)),
        // On stderr even with --quiet: the resume continues from another checkpoint than LATEST.
        onWarning: (message) =>
          options.quiet ? console.error(`warning: ${message}`) : progress.log(`warning: ${message}`),
        onStep: (step, metrics) =>
          progress.update(step, { loss: metrics['train/loss'], 'tok/s': metrics['perf/tokens_per_sec'] }),
        onEval: (step, summary) =>
          progress.log(`step ${step}: held-out pass@1 ${summary.overall.passAt1.toFixed(3)}`),
      });
      progress.stop();
      if (options.json) {
        console.log(JSON.stringify(result, null, 2));
        return;
      }
      console.log(`run: ${result.runDir} (${result.steps} steps, ${result.wallSeconds.toFixed(0)} s)`);
      console.log(formatEvalTable(result.finalEval));
    });
}
