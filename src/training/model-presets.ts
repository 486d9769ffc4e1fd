// The `model:` block of training configs: a named preset from src/policy/model-config.ts, with overrides.
import { z } from 'zod';
import { ConfigError } from '../core/errors.ts';
import { type ModelConfig, type ModelPresetName, modelPresets } from '../policy/model-config.ts';

export const modelBlockSchema = z.strictObject({
  preset: z.enum(Object.keys(modelPresets) as [ModelPresetName, ...ModelPresetName[]]).default('base'),
  dModel: z.number().int().positive().optional(),
  layers: z.number().int().positive().optional(),
  heads: z.number().int().positive().optional(),
  contextLength: z.number().int().min(8).optional(),
});

export type ModelBlock = z.output<typeof modelBlockSchema>;

export type ModelShape = Omit<ModelConfig, 'vocabSize'>;

export function resolveModelShape(block: ModelBlock): ModelShape {
  const shape: ModelShape = { ...modelPresets[block.preset] };
  for (const key of ['dModel', 'layers', 'heads', 'contextLength'] as const) {
    if (block[key] !== undefined) shape[key] = block[key];
  }
  if (shape.dModel % shape.heads !== 0) {
    throw new ConfigError(`model.dModel (${shape.dModel}) must be divisible by model.heads (${shape.heads})`);
  }
  return shape;
}
