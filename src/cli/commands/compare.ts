// `curricula compare <runDir...>`: groups runs that differ only in their seed, and writes a side-by-side
// comparison (final held-out rates per level as mean ± sd, steps to the baseline's final value, what each
// group practised, cost) to <out>/compare.md with SVG mean curves and comparison.json.
import { dirname, join, resolve } from 'node:path';
import { type Command, Option } from 'commander';
import { UserError } from '../../core/errors.ts';

interface CompareCliOptions {
  by?: string;
  baseline?: string;
  headline: string;
  target?: number;
  out?: string;
  json?: boolean;
  stdout?: boolean;
}

export function register(program: Command): void {
  program
    .command('compare')
    .summary('compare groups of runs (mean ± sd over seeds)')
    .description('compare groups of runs side by side (mean ± sd over seeds, steps to the baseline, curves)')
    .argument('<runDirs...>', 'run directories, e.g. runs/selectors/*-s*')
    .option(
      '--by <keys>',
      'comma-separated config keys to group by (default: the keys that differ, except name/seed)',
    )
    .option(
      '--baseline <group|run>',
      "reference group (or a run of it, by name) for steps-to-target and paired differences (default: 'uniform' if present)",
    )
    .option('--headline <metric>', 'metric for steps-to-target and paired differences', 'eval/pass@1')
    .option(
      '--target <value>',
      "explicit target for steps-to-target (default: the baseline's mean final value)",
      parseTarget,
    )
    .option('--out <dir>', 'output directory (default: <common parent of the runs>/compare)')
    .addOption(new Option('--json', 'print the comparison as JSON'))
    .addOption(new Option('--stdout', 'print the Markdown instead of its path').conflicts('json'))
    .action(async (runDirs: string[], options: CompareCliOptions) => {
      const { writeComparison } = await import('../../runs/compare/write-comparison.ts');
      const { withRlDefaults } = await import('../../training/rl/config-defaults.ts');
      const out = options.out ?? defaultOut(runDirs);
      const written = await writeComparison(runDirs, {
        out,
        withDefaults: withRlDefaults,
        by: options.by
          ?.split(',')
          .map((key) => key.trim())
          .filter(Boolean),
        baseline: options.baseline,
        headline: options.headline,
        target: options.target,
      });
      if (options.json) {
        console.log(
          JSON.stringify(
            { groupedBy: written.groupedBy, ...written.comparison, markdownPath: written.markdownPath },
            null,
            2,
          ),
        );
      } else if (options.stdout) {
        process.stdout.write(written.markdown);
      } else {
        console.log(written.markdownPath);
      }
    });
}

function parseTarget(value: string): number {
  const number = Number(value);
  if (!Number.isFinite(number)) throw new UserError(`--target must be a number, got '${value}'`);
  return number;
}

function defaultOut(runDirs: readonly string[]): string {
  const parents = new Set(runDirs.map((dir) => dirname(resolve(dir))));
  return parents.size === 1 ? join([...parents][0], 'compare') : 'compare';
}
