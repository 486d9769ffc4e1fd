// `curricula train --config <yaml>` / `curricula train --resume runs/<name>`: RL fine-tuning.
import type { Command } from 'commander';
import type { ConfigOverride } from '../../core/config-overrides.ts';
import { UserError } from '../../core/errors.ts';
import { resolvePolicyAddress } from '../../core/policy-address.ts';
import { shortInput } from '../../core/quote-input.ts';
import { formatBeforeAfter } from '../../eval/before-after.ts';
import { rlConfigSchema } from '../../training/rl/config.ts';
import { addConfigOverrideOptions, loadConfigWithOverrides } from '../config-options.ts';
import { createProgress } from '../progress.ts';
import { refuseIgnoredResumeOptions, resumedTotalSteps } from '../resume-options.ts';

/** `--policy tinker://…` and `--base-model` as config overrides (applied before any --set). */
function policyOverrides(options: { policy?: string; baseModel?: string }): ConfigOverride[] {
  if (options.policy === undefined) {
    if (options.baseModel !== undefined)
      throw new UserError('--base-model needs --policy tinker://HOST:PORT');
    return [];
  }
  const resolved = resolvePolicyAddress(options.policy);
  if (resolved.backend !== 'tinker' || !resolved.address?.includes('://')) {
    throw new UserError(
      `--policy must be tinker://HOST:PORT (or an http URL), got '${shortInput(options.policy)}'`,
    );
  }
  if (options.baseModel === undefined) throw new UserError('--policy needs --base-model <name>');
  return [
    { path: ['policy', 'backend'], value: 'tinker', text: '--policy' },
    { path: ['policy', 'tinker', 'url'], value: options.policy, text: '--policy' },
    { path: ['policy', 'tinker', 'baseModel'], value: options.baseModel, text: '--base-model' },
  ];
}

export function register(program: Command): void {
  const command = program
    .command('train')
    .summary('RL fine-tuning (GRPO family) from a config')
    .description('RL fine-tuning (GRPO family) with task selection, guidance and verifiable rewards')
    .option('-c, --config <yaml>', 'train config (see examples/train-*.yaml)')
    .option(
      '--resume <runDir>',
      'continue an RL run from its latest checkpoint with its stored config (--steps N extends it)',
    )
    .option('--overwrite', 'replace an existing run of the same name (only a run, and not one in use)')
    .option(
      '--policy <url>',
      'train through a Tinker-compatible service at tinker://HOST:PORT (sets policy.backend tinker; key: $TINKER_API_KEY)',
    )
    .option('--base-model <name>', 'with --policy: the base model on that service (policy.tinker.baseModel)');
  addConfigOverrideOptions(command)
    .option('--no-report', 'skip writing runs/<name>/report/ at the end')
    .option('--json', 'print the result as JSON on stdout')
    .option('--quiet', 'no progress output')
    .action(async (options) => {
      refuseIgnoredResumeOptions('train', options);
      const config = options.config
        ? loadConfigWithOverrides(rlConfigSchema, {
            ...options,
            set: [...policyOverrides(options), ...(options.set ?? [])],
          })
        : null;
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
        // On stderr even with --quiet: the resume continues from another checkpoint than LATEST.
        onWarning: (message) =>
          options.quiet ? console.error(`warning: ${message}`) : progress.log(`warning: ${message}`),
        // On stderr even with --quiet or --json: it is about the run's settings, not its progress.
        onAdvice: (message) =>
          options.quiet ? console.error(`warning: ${message}`) : progress.log(`warning: ${message}`),
        // No perf/step_seconds: the progress line has the rate, evaluations included.
        onStep: (step, metrics) => progress.update(step, { reward: metrics['reward/mean'] }),
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
