// `curricula teach --config <yaml>` / `curricula teach --resume runs/<name>`: trains an RLT teacher
// (src/rlt/teach.ts, docs/teachers.md) on the RL loop of `curricula train`.
import type { Command } from 'commander';
import { UserError } from '../../core/errors.ts';
import { formatBeforeAfter } from '../../eval/before-after.ts';
import { addConfigOverrideOptions, loadConfigWithOverrides } from '../config-options.ts';
import { createProgress } from '../progress.ts';
import { refuseIgnoredResumeOptions, resumedTotalSteps } from '../resume-options.ts';

export function register(program: Command): void {
  const command = program
    .command('teach')
    .summary('RLT: train a teacher to explain solutions')
    .description(
      'RLT: train a teacher whose explanations make a frozen student find the reference solution likely',
    )
    .option('-c, --config <yaml>', 'teach config (see examples/ladder-teach.yaml)')
    .option('--resume <runDir>', 'continue a teach run from its latest checkpoint (--steps N extends it)')
    .option('--overwrite', 'replace an existing run of the same name (only a run, and not one in use)');
  addConfigOverrideOptions(command)
    .option('--json', 'print the result as JSON on stdout')
    .option('--quiet', 'no progress output')
    .action(async (options) => {
      refuseIgnoredResumeOptions('teach', options);
      if (options.resume && options.config) {
        throw new UserError(
          'teach --resume uses the stored config: drop --config (--steps N extends the run)',
        );
      }
      if (!options.config && !options.resume) {
        throw new UserError('give a config (--config <yaml>) or a run to resume (--resume <runDir>)');
      }
      // Loaded on use, as `teach` itself: the config module pulls in the policy (tfjs), which `--help` and
      // every other command would otherwise load at start-up.
      const { teachConfigSchema } = await import('../../rlt/teach-config.ts');
      const config = options.config ? loadConfigWithOverrides(teachConfigSchema, options) : null;
      const { teach } = await import('../../rlt/teach.ts');
      const total = options.resume
        ? resumedTotalSteps(options.resume, options.steps)
        : (config?.train.steps ?? 0);
      const progress = createProgress('teach', total, { quiet: options.quiet || total === 0 });
      const result = await teach(config, {
        resume: options.resume,
        steps: options.resume ? options.steps : undefined,
        overwrite: options.overwrite,
        onOverwrite: (message) => (options.quiet ? console.error(message) : progress.log(message)),
        onAdvice: (message) =>
          options.quiet ? console.error(`warning: ${message}`) : progress.log(`warning: ${message}`),
        // No perf/step_seconds: the progress line has the rate, evaluations included.
        onStep: (step, metrics) =>
          progress.update(step, {
            reward: metrics['reward/mean'],
            r_ss: metrics['rlt/r_ss'],
            r_kl: metrics['rlt/r_kl'],
          }),
        onEval: (step, summary) =>
          progress.log(`step ${step}: teacher's own held-out pass@1 ${summary.overall.passAt1.toFixed(3)}`),
      });
      progress.stop();
      if (options.json) {
        console.log(JSON.stringify(result, null, 2));
        return;
      }
      console.log(
        `teacher run: ${result.runDir} (${result.steps} steps, ${result.wallSeconds.toFixed(0)} s)`,
      );
      console.log("the teacher's own held-out pass@1 as a solver (before → after):");
      console.log(formatBeforeAfter(result.initialEval, result.finalEval));
    });
}
