// `curricula simulate`: run task selectors against a simulated learner (src/curricula/simulate) and
// compare held-out learning curves: area under the curve, steps to a target accuracy, mean ± 95% CI over
// seeds; writes an SVG chart and the full result (JSON) to --out.
import { mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import type { Command } from 'commander';
import { selectors } from '../../curricula/index.ts';
import { learners } from '../../curricula/simulate/learners.ts';
import { formatSimulationTable, simulationSvg } from '../../curricula/simulate/report.ts';
import { simulateFromConfig, simulationRunCount } from '../../curricula/simulate/simulate-config.ts';
import { positiveInteger } from '../parse-options.ts';
import { createProgress } from '../progress.ts';

export function register(program: Command): void {
  program
    .command('simulate')
    .summary('compare task selectors on a simulated learner')
    .description(
      'compare task selectors on a simulated learner (no model, seconds): AUC, steps to target, 95% CI',
    )
    .option(
      '--selectors <names>',
      `comma-separated selectors (default: all): ${selectors.names().join(', ')}`,
    )
    .option('--learner <kind>', `simulated learner: ${learners.names().join(', ')}`, 'irt')
    .option('--steps <n>', 'training steps per run', positiveInteger('--steps'), 500)
    .option('--seeds <n>', 'seeds per selector (1..n)', positiveInteger('--seeds'), 5)
    .option('--batch-size <n>', 'problems per step', positiveInteger('--batch-size'), 32)
    .option('--group-size <n>', 'samples per problem (G)', positiveInteger('--group-size'), 8)
    .option('--target <accuracy>', 'held-out accuracy counted as reached', Number.parseFloat, 0.8)
    .option(
      '--jobs <n>',
      'worker threads running (selector, seed) runs in parallel; results do not depend on it',
      positiveInteger('--jobs'),
      availableParallelism(),
    )
    .option('--out <dir>', 'write simulation.svg and simulation.json here')
    .option('--json', 'print the result as JSON on stdout')
    .option('--quiet', 'no progress output')
    .action(async (options) => {
      const config = {
        selectors:
          options.selectors === undefined
            ? undefined
            : String(options.selectors)
                .split(',')
                .map((name) => name.trim())
                .filter((name) => name.length > 0),
        learner: options.learner,
        steps: options.steps,
        seeds: options.seeds,
        batchSize: options.batchSize,
        groupSize: options.groupSize,
        target: options.target,
        jobs: options.jobs,
      };
      const progress = createProgress('simulate', simulationRunCount(config), {
        quiet: options.quiet || options.json,
        unit: 'run',
      });
      let runs = 0;
      const result = await simulateFromConfig(config, {
        source: 'simulate options',
        onRun: (label) => progress.update(++runs, { selector: label }),
      });
      progress.stop();
      if (options.out !== undefined) {
        mkdirSync(options.out, { recursive: true });
        writeFileSync(join(options.out, 'simulation.svg'), simulationSvg(result));
        writeFileSync(join(options.out, 'simulation.json'), `${JSON.stringify(result)}\n`);
      }
      if (options.json) {
        console.log(JSON.stringify(result));
        return;
      }
      console.log(
        `learner ${result.learner}, ${result.steps} steps, seeds ${result.seeds.join(',')}, batch ${result.batchSize} × group ${result.groupSize}`,
      );
      console.log(formatSimulationTable(result));
      console.log(`wall time ${(result.wallMilliseconds / 1000).toFixed(1)} s`);
      if (options.out !== undefined) console.log(`wrote ${join(options.out, 'simulation.svg')}`);
    });
}
