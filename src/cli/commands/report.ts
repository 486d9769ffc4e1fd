// `curricula report <runDir>`: writes runs/<name>/report/report.md with SVG learning curves, the
// before/after table and sample completions, and prints where it went.
import { type Command, Option } from 'commander';
import { nonNegativeInteger } from '../parse-options.ts';

export function register(program: Command): void {
  program
    .command('report')
    .summary("write a run's report: curves, table, samples")
    .description(
      'write <runDir>/report/report.md with SVG learning curves, the before/after table and sample completions',
    )
    .argument('<runDir>', 'run directory, e.g. runs/<name>')
    .option(
      '--samples <n>',
      'sample completions shown from the last step',
      nonNegativeInteger('--samples'),
      4,
    )
    .addOption(new Option('--json', 'print {reportPath, plots, summary} as JSON'))
    .addOption(
      new Option(
        '--stdout',
        'print the Markdown instead of the report path (the report is still written)',
      ).conflicts('json'),
    )
    .action(async (runDir: string, options: { samples: number; json?: boolean; stdout?: boolean }) => {
      // Loaded here, not at the top: vega is large and only this command needs it.
      const { writeReport } = await import('../../runs/report/index.ts');
      const written = await writeReport(runDir, { samples: options.samples });
      if (options.json) {
        console.log(
          JSON.stringify(
            { reportPath: written.reportPath, plots: written.plots, summary: written.summary },
            null,
            2,
          ),
        );
      } else if (options.stdout) {
        process.stdout.write(written.markdown);
      } else {
        console.log(written.reportPath);
      }
    });
}
