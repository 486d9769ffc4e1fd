// JSON Schemas of the config files, generated from the zod schemas (zod 4 `z.toJSONSchema`, io 'input':
// what a user writes, defaults optional), for editors: a YAML file whose first lines carry
//   # yaml-language-server: $schema=../schemas/train.schema.json
// gets completion and checking as it is typed (the YAML language server of VS Code and others).
// `curricula schema` writes them; the committed copies in schemas/ are checked to be up to date by
// src/api/json-schemas.test.ts. Deviation: refinements that JSON Schema cannot express (e.g. the
// cross-field checks of validateRlConfig) are left to the loader; a transform's input side is described.
import { z } from 'zod';
import { simulateConfigSchema } from '../curricula/simulate/simulate-config.ts';
import { evaluateConfigSchema } from '../eval/evaluate-config.ts';
import { distillConfigSchema } from '../rlt/distill-config.ts';
import { teachConfigSchema } from '../rlt/teach-config.ts';
import { pretrainConfigSchema } from '../training/pretrain-config.ts';
import { trainRmConfigSchema } from '../training/reward-model/train-rm.ts';
import { rlConfigSchema } from '../training/rl/config.ts';

/** Config kinds with a JSON Schema: the YAML files of train/pretrain/teach/distill, and eval/simulate. */
export const configSchemas = {
  train: { schema: rlConfigSchema, title: 'Curricula train config (curricula train --config)' },
  pretrain: {
    schema: pretrainConfigSchema,
    title: 'Curricula pretrain config (curricula pretrain --config)',
  },
  teach: { schema: teachConfigSchema, title: 'Curricula teach config (curricula teach --config)' },
  distill: { schema: distillConfigSchema, title: 'Curricula distill config (curricula distill --config)' },
  eval: { schema: evaluateConfigSchema, title: 'Curricula evaluation config (evaluate() in the library)' },
  simulate: {
    schema: simulateConfigSchema,
    title: 'Curricula simulation config (simulate() in the library)',
  },
  'train-rm': {
    schema: trainRmConfigSchema,
    title: 'Curricula reward-model config (curricula train-rm --config)',
  },
} as const;

/** A config kind: train, pretrain, teach, distill, eval, simulate or train-rm. */
export type ConfigKind = keyof typeof configSchemas;

/** The JSON Schema (draft 2020-12) of one config kind, as an object. */
export function configJsonSchema(kind: ConfigKind): Record<string, unknown> {
  const { schema, title } = configSchemas[kind];
  const generated = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Record<
    string,
    unknown
  >;
  const { $schema, ...rest } = generated;
  return { $schema, title, ...rest };
}

/** File name of a kind's schema in schemas/ (and in `curricula schema --out`). */
export function schemaFileName(kind: ConfigKind): string {
  return `${kind}.schema.json`;
}

/** Every kind's schema as the text written to disk (2-space JSON, trailing newline). */
export function configJsonSchemaFiles(): { kind: ConfigKind; file: string; text: string }[] {
  return (Object.keys(configSchemas) as ConfigKind[]).map((kind) => ({
    kind,
    file: schemaFileName(kind),
    text: `${JSON.stringify(configJsonSchema(kind), null, 2)}\n`,
  }));
}
