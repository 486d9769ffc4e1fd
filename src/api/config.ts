// The config schemas of the public API: the same zod schemas that validate the YAML files of
// `curricula train`, `pretrain`, `teach`, `distill` (and the flags of `eval` and `simulate`), with the
// input type of each (`z.input`: what a user writes, defaults optional) and the resolved type (`z.output`).
// `validateConfig` is the function the CLI uses (src/core/config.ts parseConfig): it throws one
// ConfigError that lists every invalid field with its key path and, for unknown keys, the allowed ones.
import type { z } from 'zod';
import { parseConfig } from '../core/config.ts';
import { simulateConfigSchema } from '../curricula/simulate/simulate-config.ts';
import { evaluateConfigSchema } from '../eval/evaluate-config.ts';
import { distillConfigSchema } from '../rlt/distill-config.ts';
import { teachConfigSchema } from '../rlt/teach-config.ts';
import { pretrainConfigSchema } from '../training/pretrain-config.ts';
import { rlConfigSchema } from '../training/rl/config.ts';

/** Schema of a train config (`curricula train --config`, `train()`): RL fine-tuning. */
export const trainConfigSchema = rlConfigSchema;
export {
  distillConfigSchema,
  evaluateConfigSchema,
  pretrainConfigSchema,
  simulateConfigSchema,
  teachConfigSchema,
};

/** A train config as written in YAML or a script (defaults optional). */
export type TrainConfig = z.input<typeof trainConfigSchema>;
/** A train config with every default filled in (what the run stores in config.json). */
export type ResolvedTrainConfig = z.output<typeof trainConfigSchema>;
/** A pretrain config as written in YAML or a script (defaults optional). */
export type PretrainConfig = z.input<typeof pretrainConfigSchema>;
/** A pretrain config with every default filled in. */
export type ResolvedPretrainConfig = z.output<typeof pretrainConfigSchema>;
/** A teach (RLT teacher) config as written in YAML or a script. */
export type TeachConfig = z.input<typeof teachConfigSchema>;
/** A distill config as written in YAML or a script. */
export type DistillConfig = z.input<typeof distillConfigSchema>;
/** An evaluation config (`evaluate()`; the flags of `curricula eval`). */
export type EvaluateConfig = z.input<typeof evaluateConfigSchema>;
/** A selector-simulation config (`simulate()`; the flags of `curricula simulate`). */
export type SimulateConfig = z.input<typeof simulateConfigSchema>;

/**
 * Validates `value` against a config schema and returns it with defaults filled in. Throws one
 * ConfigError listing every invalid field (`<source>: train.steps: …; unknown key 'x' at rollout; allowed:
 * …`), exactly as the CLI prints a bad YAML file.
 */
export function validateConfig<Schema extends z.ZodType>(
  schema: Schema,
  value: unknown,
  source = 'config',
): z.output<Schema> {
  return parseConfig(schema, value, source);
}
