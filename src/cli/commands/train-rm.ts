// `curricula train-rm --config <yaml>`: a Bradley–Terry reward model from preference pairs
// (src/training/reward-model/train-rm.ts), served afterwards by the `reward-model` reward.
import type { Command } from 'commander';
import { readConfigFile } from '../../core/config.ts';
import { createProgress } from '../progress.ts';

export function register(program: Command): void {
  program
    .command('train-rm')
    .summary('Bradley–Terry reward model from pairs')
    .description(
      'fine-tune an embedded checkpoint into a Bradley–Terry reward model on JSONL preference pairs {prompt, chosen, rejected}; reports training and held-out pair accuracy; the model serves as reward `reward-model` (docs/rewards/judges.md)',
    )
    .requiredOption('-c, --config <yaml>', 'train-rm config (examples/train-rm.yaml)')
    .option('--json', 'print the result as JSON on stdout')
    .option('--quiet', 'no progress output')
    .action(async (options: { config: string; json?: boolean; quiet?: boolean }) => {
      const raw = readConfigFile(options.config) as { train?: { steps?: number } };
      const { trainRm } = await import('../../training/reward-model/train-rm.ts');
      const progress = createProgress('train-rm', Number(raw?.train?.steps ?? 0), { quiet: options.quiet });
      const result = await trainRm(raw, options.config, (step, line) => {
        const { loss, heldOutAccuracy } = line as { loss: number; heldOutAccuracy?: number };
        progress.update(step, { loss });
        if (heldOutAccuracy !== undefined)
          progress.log(`step ${step}: held-out pair accuracy ${heldOutAccuracy.toFixed(3)}`);
      });
      progress.stop();
      if (options.json) {
        console.log(JSON.stringify(result, null, 2));
        return;
      }
      const held =
        result.heldOutAccuracy === null
          ? 'no held-out pairs'
          : `held-out pair accuracy ${result.heldOutAccuracy.toFixed(3)} (${result.heldOutPairs} pairs)`;
      console.log(
        `reward model: ${result.runDir}/model — ${held}; training ${result.trainAccuracy.toFixed(3)} (${result.trainPairs} pairs)`,
      );
    });
}
