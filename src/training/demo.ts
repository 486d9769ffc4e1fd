// The main job (`npm start` → `curricula demo`): cold start → RL on a harder mix → held-out evaluation,
// with the before/after table on screen and the report in the run directory.
//
// The cold start comes from a checkpoint shipped in examples/checkpoints/demo-cold (made by
// `curricula pretrain --config examples/demo-pretrain.yaml`, see its header); with `fromScratch` the
// pretrain stage runs here first.
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { loadConfigFile, parseConfig } from '../core/config.ts';
import { ConfigError } from '../core/errors.ts';
import { shortInput } from '../core/quote-input.ts';
import type { EvalSummary } from '../eval/aggregate.ts';
import type { WorkerCount } from '../policy/parallel-options.ts';
import { writeReport } from '../runs/report/index.ts';
import { checkRunsDirectory, runDirectory } from '../runs/run-name.ts';
import { pretrain } from './pretrain.ts';
import { pretrainConfigSchema } from './pretrain-config.ts';
import { type RlConfig, rlConfigSchema } from './rl/config.ts';
import { type TrainHooks, train } from './rl/train.ts';

export const demoPaths = {
  pretrainConfig: 'examples/demo-pretrain.yaml',
  trainConfig: 'examples/demo-train.yaml',
  shippedCheckpoint: 'examples/checkpoints/demo-cold',
};

export interface DemoOptions extends TrainHooks {
  /** Run the pretrain stage instead of using the shipped cold-start checkpoint. */
  fromScratch?: boolean;
  runsDir?: string;
  name?: string;
  seed?: number;
  /** Override the number of RL steps. */
  steps?: number;
  /** policy.workers of both stages (default: the example configs', i.e. auto = one per core). */
  workers?: WorkerCount;
  /** Run the RL stage through a Tinker-compatible service (docs/tinker-client.md); the cold start is
   *  then only the tokenizer's source, the weights are the server's base model. */
  tinker?: { url: string; baseModel: string };
  overwrite?: boolean;
  /** Told what is removed when `overwrite` replaces an existing run. */
  onOverwrite?: (message: string) => void;
  onStage?: (message: string) => void;
  /** Called once the RL stage starts, with its number of steps. */
  onTrainStart?: (steps: number) => void;
}

export interface DemoResult {
  runDir: string;
  coldStart: string;
  /** The RL stage's config file (absolute), for running that stage again with changes. */
  trainConfig: string;
  /** task → difficulty → pass@1. */
  before: Record<string, Record<string, number>>;
  after: Record<string, Record<string, number>>;
  beforeSummary?: EvalSummary;
  afterSummary: EvalSummary;
  reportPath?: string;
  wallSeconds: number;
}

export async function runDemo(options: DemoOptions = {}): Promise<DemoResult> {
  const started = Date.now();
  const root = resolve(import.meta.dirname, '../..');
  const runsDir = options.runsDir ?? 'runs';
  const name = options.name ?? 'demo';
  // Checked before any work: the demo overwrites by default, so a bad name must never reach a deletion.
  runDirectory(runsDir, name);
  checkRunsDirectory(runsDir, 'demo --runs-dir');
  // Named as the options they are, not as a mistake in the example config they are merged into.
  if (options.steps !== undefined && !(Number.isInteger(options.steps) && options.steps >= 1)) {
    throw new ConfigError(
      `demo --steps must be a positive integer, got ${shortInput(String(options.steps))}`,
    );
  }
  if (options.seed !== undefined && !Number.isSafeInteger(options.seed)) {
    throw new ConfigError(`demo --seed must be an integer, got ${shortInput(String(options.seed))}`);
  }
  let coldStart = join(root, demoPaths.shippedCheckpoint);
  if (options.fromScratch || !existsSync(join(coldStart, 'model.safetensors'))) {
    const raw = loadConfigFile(pretrainConfigSchema, join(root, demoPaths.pretrainConfig));
    const config = {
      ...raw,
      runsDir,
      name: `${name}-cold`,
      ...(options.workers !== undefined ? { policy: { workers: options.workers } } : {}),
    };
    options.onStage?.(`cold start: pretraining ${config.train.steps} steps (${demoPaths.pretrainConfig})`);
    const result = await pretrain(config, { overwrite: options.overwrite, onOverwrite: options.onOverwrite });
    coldStart = result.runDir;
  } else {
    options.onStage?.(`cold start: shipped checkpoint ${demoPaths.shippedCheckpoint}`);
  }
  const trainConfig = join(root, demoPaths.trainConfig);
  const raw = loadConfigFile(rlConfigSchema, trainConfig);
  const config: RlConfig = parseConfig(
    rlConfigSchema,
    {
      ...raw,
      runsDir,
      name,
      seed: options.seed ?? raw.seed,
      init: { checkpoint: coldStart },
      ...(options.workers !== undefined || options.tinker
        ? {
            policy: {
              ...(options.workers !== undefined ? { workers: options.workers } : {}),
              ...(options.tinker ? { backend: 'tinker', tinker: options.tinker } : {}),
            },
          }
        : {}),
      train: { ...raw.train, steps: options.steps ?? raw.train.steps },
    },
    demoPaths.trainConfig,
  );
  options.onStage?.(
    `RL: ${config.train.steps} steps of ${config.algorithm.advantage.name} (${demoPaths.trainConfig})`,
  );
  options.onTrainStart?.(config.train.steps);
  const result = await train(config, {
    overwrite: options.overwrite,
    onOverwrite: options.onOverwrite,
    onStep: options.onStep,
    onEval: options.onEval,
  });
  const { reportPath } = await writeReport(result.runDir);
  return {
    runDir: result.runDir,
    coldStart,
    trainConfig,
    before: passAt1Table(result.initialEval),
    after: passAt1Table(result.finalEval),
    beforeSummary: result.initialEval,
    afterSummary: result.finalEval,
    reportPath,
    wallSeconds: (Date.now() - started) / 1000,
  };
}

function passAt1Table(summary: EvalSummary | undefined): Record<string, Record<string, number>> {
  const table: Record<string, Record<string, number>> = {};
  for (const group of summary?.groups ?? []) {
    table[group.task] ??= {};
    table[group.task][String(group.difficulty)] = group.passAt[1];
  }
  return table;
}
