// `curricula pretrain --config <yaml>`: supervised cold start on worked solutions.
import type { Command } from 'commander';
import { loadConfigFile, parseConfig } from '../../core/config.ts';
import { formatEvalTable } from '../../eval/format-table.ts';
import { pretrainConfigSchema } from '../../training/pretrain-config.ts';
import { createProgress } from '../progress.ts';

export function register(program: Command): void {
  program
    .command('pretrain')
    .description('supervised next-token training on worked solutions (the cold-start stage)')
    .requiredOption('-c, --config <yaml>', 'pretrain config (see examples/pretrain-*.yaml)')
    .option('--resume <runDir>', 'continue an interrupted run from its latest checkpoint')
    .option('--overwrite', 'replace an existing run directory of the same name')
    .option('--steps <n>', 'override train.steps')
    .option('--name <name>', 'override the run name')
    .option('--json', 'print the result as JSON on stdout')
    .option('--quiet', 'no progress output')
    .action(async (options) => {
      const raw = loadConfigFile(pretrainConfigSchema, options.config);
      const config = parseConfig(
        pretrainConfigSchema,
        {
          ...raw,
          name: options.name ?? raw.name,
          train: { ...raw.train, ...(options.steps === undefined ? {} : { steps: Number(options.steps) }) },
        },
        `${options.config} (with command-line overrides)`,
      );
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
