// `curricula pretrain --config <yaml>`: supervised cold start on worked solutions.
import type { Command } from 'commander';
import { formatEvalTable } from '../../eval/format-table.ts';
import { pretrainConfigSchema } from '../../training/pretrain-config.ts';
import { addConfigOverrideOptions, loadConfigWithOverrides } from '../config-options.ts';
import { createProgress } from '../progress.ts';

export function register(program: Command): void {
  const command = program
    .command('pretrain')
    .description('supervised next-token training on worked solutions (the cold-start stage)')
    .requiredOption('-c, --config <yaml>', 'pretrain config (see examples/pretrain-*.yaml)')
    .option('--resume <runDir>', 'continue an interrupted run from its latest checkpoint')
    .option('--overwrite', 'replace an existing run directory of the same name');
  addConfigOverrideOptions(command)
    .option('--json', 'print the result as JSON on stdout')
    .option('--quiet', 'no progress output')
    .action(async (options) => {
      const config = loadConfigWithOverrides(pretrainConfigSchema, options);
      const { pretrain } = await import('../../training/pretrain.ts');
      const progress = createProgress('pretrain', config.train.steps, { quiet: options.quiet });
      const result = await pretrain(config, {
        resume: options.resume,
        overwrite: options.overwrite,
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
