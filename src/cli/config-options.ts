// The config options shared by `curricula train` and `curricula pretrain`: a file plus command-line
// overrides (`--name`, `--seed`, `--steps`, `--workers`, repeatable `--set path=value`), validated together.
import type { Command } from 'commander';
import type { z } from 'zod';
import { parseConfig, readConfigFile } from '../core/config.ts';
import {
  applyOverrides,
  type ConfigOverride,
  collectOverride,
  parseOverride,
} from '../core/config-overrides.ts';
import { parseWorkersOption, type WorkerCount } from '../policy/parallel-options.ts';
import { positiveInteger } from './parse-options.ts';

export interface ConfigOptions {
  config: string;
  name?: string;
  seed?: string;
  steps?: number;
  workers?: WorkerCount;
  set?: ConfigOverride[];
}

/** Adds `--steps`, `--name`, `--seed`, `--workers` and `--set` to a command. */
export function addConfigOverrideOptions(command: Command): Command {
  return command
    .option('--steps <n>', 'override train.steps', positiveInteger('--steps'))
    .option('--name <name>', 'override the run name')
    .option('--seed <n>', 'override the seed')
    .option(
      '--workers <n|auto>',
      'override policy.workers: replicas of the embedded policy in worker threads (default auto = one per core; 1 = in process)',
      parseWorkersOption,
    )
    .option(
      '--set <path=value>',
      'override any config key (repeatable; value parsed as YAML), e.g. --set selector.name=sec',
      collectOverride,
    );
}

/** Reads `options.config`, applies the overrides in order (`--set` last) and validates the result. */
export function loadConfigWithOverrides<Schema extends z.ZodType>(
  schema: Schema,
  options: ConfigOptions,
): z.output<Schema> {
  const shortcuts: ConfigOverride[] = [];
  if (options.name !== undefined) shortcuts.push({ path: ['name'], value: options.name, text: `--name` });
  if (options.seed !== undefined) shortcuts.push(parseOverride(`seed=${options.seed}`));
  if (options.steps !== undefined)
    shortcuts.push({ path: ['train', 'steps'], value: options.steps, text: '--steps' });
  if (options.workers !== undefined)
    shortcuts.push({ path: ['policy', 'workers'], value: options.workers, text: '--workers' });
  const overrides = [...shortcuts, ...(options.set ?? [])];
  const raw = readConfigFile(options.config);
  const source = overrides.length > 0 ? `${options.config} (with command-line overrides)` : options.config;
  return parseConfig(schema, applyOverrides(raw, overrides), source);
}
