// `curricula plan [pilotRuns...] --effect E`: how many RL seeds × cold starts × evaluation problems an
// experiment needs to detect an effect of size E on a held-out metric (src/eval/power.ts: the model and
// its assumptions), from a pilot's runs (one setting over seeds) or from a spread given by hand (--sd).
import { type Command, Option } from 'commander';
import { UserError } from '../../core/errors.ts';
import { shortInput } from '../../core/quote-input.ts';
import type { VarianceComponents } from '../../eval/power.ts';
import { distinctList, positiveInteger } from '../parse-options.ts';

interface PlanCliOptions {
  effect: number;
  metric: string;
  sd?: number;
  pass: number;
  pilotEvalProblems?: number;
  pilotEvalSamples?: number;
  coldStarts: number[];
  evalProblems?: number;
  evalSamples?: number;
  maxSeeds: number;
  alpha: number;
  power: number;
  unblocked?: boolean;
  json?: boolean;
}

const fraction =
  (name: string, open = false) =>
  (value: string) => {
    const number = Number(value);
    if (!Number.isFinite(number) || number <= 0 || (open ? number >= 1 : number > 1)) {
      throw new UserError(
        `${name} must be a number in (0, ${open ? '1)' : '1]'}, got '${shortInput(value)}'`,
      );
    }
    return number;
  };

export function register(program: Command): void {
  program
    .command('plan')
    .summary('how many seeds an experiment needs (power)')
    .description(
      "power before runs: from a pilot's runs (one setting over seeds) or a given spread, the minimum detectable effect of each design (cold starts × RL seeds) and the seeds needed to detect --effect",
    )
    .argument(
      '[pilotRuns...]',
      'run directories of one setting over seeds (several cold starts to estimate their spread)',
    )
    .requiredOption(
      '--effect <x>',
      'the effect to detect, absolute in the metric (e.g. 0.05 pass@1)',
      fraction('--effect'),
    )
    .option('--metric <key>', 'the metric compared (its value at the last evaluation)', 'eval/pass@1')
    .option(
      '--sd <x>',
      "instead of pilot runs: the SD between RL seeds of a run's final value",
      fraction('--sd'),
    )
    .option(
      '--pass <p>',
      'with --sd: the metric level (the p of the evaluation noise)',
      fraction('--pass'),
      0.5,
    )
    .option(
      '--pilot-eval-problems <n>',
      'with --sd: problems the SD was measured on (default: --eval-problems)',
      positiveInteger('--pilot-eval-problems'),
    )
    .option(
      '--pilot-eval-samples <k>',
      'with --sd: samples per problem it was measured with (default: --eval-samples)',
      positiveInteger('--pilot-eval-samples'),
    )
    .addOption(
      new Option('--cold-starts <list>', 'numbers of cold starts (pretraining seeds) to plan for')
        .argParser(distinctList('--cold-starts', positiveInteger('--cold-starts'), 'positive integers'))
        .default([1, 3], '1,3'),
    )
    .option(
      '--eval-problems <n>',
      "held-out problems per evaluation (default: the pilot's)",
      positiveInteger('--eval-problems'),
    )
    .option(
      '--eval-samples <k>',
      "samples per problem (default: the pilot's)",
      positiveInteger('--eval-samples'),
    )
    .option(
      '--max-seeds <n>',
      'largest number of RL seeds per cold start to consider',
      positiveInteger('--max-seeds'),
      10,
    )
    .option('--alpha <a>', 'two-sided significance level', fraction('--alpha', true), 0.05)
    .option('--power <p>', 'power (1 − β)', fraction('--power', true), 0.8)
    .option('--unblocked', 'each arm starts from its own cold starts (default: the arms share them)')
    .addOption(new Option('--json', 'print the plan as JSON'))
    .action(async (pilotRuns: string[], options: PlanCliOptions) => {
      const { planExperiment, formatPlan } = await import('../../eval/plan.ts');
      const { components, source, evalProblems, evalSamples } = await spreadOf(pilotRuns, options);
      const plan = planExperiment({
        components,
        source,
        metric: options.metric,
        effect: options.effect,
        test: { alpha: options.alpha, power: options.power },
        coldStarts: options.coldStarts,
        maxSeeds: options.maxSeeds,
        evalProblems,
        evalSamples,
        blocked: !options.unblocked,
      });
      console.log(options.json ? JSON.stringify(plan, null, 2) : formatPlan(plan));
    });
}

interface Spread {
  components: VarianceComponents;
  source: string;
  evalProblems: number;
  evalSamples: number;
}

/** The variance components from the pilot's runs, or from --sd; and the planned evaluation size. */
async function spreadOf(pilotRuns: readonly string[], options: PlanCliOptions): Promise<Spread> {
  const { varianceComponents } = await import('../../eval/power.ts');
  if (options.sd !== undefined) {
    if (pilotRuns.length > 0) throw new UserError('plan: give pilot runs or --sd, not both');
    const { evalProblems, evalSamples } = options;
    if (evalProblems === undefined || evalSamples === undefined) {
      throw new UserError(
        'plan: with --sd, give --eval-problems and --eval-samples (the planned evaluation)',
      );
    }
    const pilot = {
      problems: options.pilotEvalProblems ?? evalProblems,
      samples: options.pilotEvalSamples ?? evalSamples,
    };
    // Two values whose sample variance is sd²: a hand-given spread between RL seeds on one cold start.
    const half = options.sd / Math.SQRT2;
    return {
      components: varianceComponents([[options.pass - half, options.pass + half]], pilot),
      source: `given SD ${options.sd} between RL seeds (measured at ${pilot.problems} × ${pilot.samples})`,
      evalProblems,
      evalSamples,
    };
  }
  if (pilotRuns.length === 0) throw new UserError('plan: give pilot run directories, or --sd');
  const { readPilot } = await import('../../eval/power-pilot.ts');
  const pilot = readPilot(pilotRuns, options.metric);
  return {
    components: varianceComponents(pilot.groups, {
      problems: pilot.evalProblems,
      samples: pilot.evalSamples,
    }),
    source: `pilot of ${pilot.runs.length} runs on ${pilot.coldStarts.length} cold start(s), evaluated on ${pilot.evalProblems} problems × ${pilot.evalSamples} samples`,
    evalProblems: options.evalProblems ?? pilot.evalProblems,
    evalSamples: options.evalSamples ?? pilot.evalSamples,
  };
}
