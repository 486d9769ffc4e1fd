// `curricula distill --config <yaml> [--source teacher|solutions]`: trains a student (SFT) on a teacher's
// explanations or on the raw worked solutions (src/rlt/distill.ts, docs/teachers.md).
import type { Command } from 'commander';
import { UserError } from '../../core/errors.ts';
import { formatBeforeAfter } from '../../eval/before-after.ts';
import { distillConfigSchema, distillSources } from '../../rlt/distill-config.ts';
import { addConfigOverrideOptions, loadConfigWithOverrides } from '../config-options.ts';
import { createProgress, type Progress } from '../progress.ts';

export function register(program: Command): void {
  const command = program
    .command('distill')
    .summary('train a student on explanations or solutions')
    .description("train a student on a teacher's explanations (RLT) or on the worked solutions")
    .requiredOption('-c, --config <yaml>', 'distill config (see examples/ladder-distill.yaml)')
    .option(
      '--source <source>',
      `what the student is trained on: ${distillSources.join(' | ')} (overrides source)`,
    )
    .option('--overwrite', 'replace an existing run of the same name (only a run, and not one in use)');
  addConfigOverrideOptions(command)
    .option('--json', 'print the result as JSON on stdout')
    .option('--quiet', 'no progress output')
    .action(async (options) => {
      if (options.source !== undefined && !(distillSources as readonly string[]).includes(options.source)) {
        throw new UserError(`--source must be one of ${distillSources.join(', ')}, got '${options.source}'`);
      }
      const sourceOverride =
        options.source === undefined ? [] : [{ path: ['source'], value: options.source, text: '--source' }];
      const config = loadConfigWithOverrides(distillConfigSchema, {
        ...options,
        set: [...sourceOverride, ...(options.set ?? [])],
      });
      const { distill } = await import('../../rlt/distill.ts');
      let progress: Progress = createProgress('distill', 0, { quiet: true });
      const result = await distill(config, {
        overwrite: options.overwrite,
        onOverwrite: (message) => console.error(message),
        onPhase: (phase, total) => {
          progress.stop();
          progress = createProgress(phase === 'explain' ? 'explain' : 'distill', total, {
            quiet: options.quiet,
          });
          if (phase === 'explain') progress.log(`the teacher writes ${total} explanations`);
        },
        onStep: (step, metrics) => progress.update(step, { loss: metrics['train/loss'] }),
      });
      progress.stop();
      if (options.json) {
        console.log(JSON.stringify(result, null, 2));
        return;
      }
      console.log(
        `student: ${result.checkpoint} (${result.steps} steps on ${result.examples} examples from ${result.source}; ${result.dropped} unclosed explanations dropped; ${result.wallSeconds.toFixed(0)} s)`,
      );
      console.log(`data: ${result.runDir}/explanations.jsonl`);
      console.log(formatBeforeAfter(result.initialEval, result.finalEval));
    });
}
