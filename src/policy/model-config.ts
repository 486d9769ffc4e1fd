// Model configuration of the embedded decoder-only transformer, validated with zod, plus named size
// presets. The vocabulary size comes from the tokenizer, so presets leave it out.
import { z } from 'zod';
import { ConfigError } from '../core/errors.ts';

export const modelConfigSchema = z
  .object({
    vocabSize: z.number().int().min(2),
    dModel: z.number().int().min(1),
    layers: z.number().int().min(1),
    heads: z.number().int().min(1),
    contextLength: z.number().int().min(2),
  })
  .strict()
  .refine((config) => config.dModel % config.heads === 0, {
    message: 'dModel must be divisible by heads',
    path: ['heads'],
  });

export type ModelConfig = z.infer<typeof modelConfigSchema>;

/** Sizes without the vocabulary; `base` is the size the throughput target (≥ 1,200 tokens/s) refers to. */
export const modelPresets = {
  tiny: { dModel: 32, layers: 2, heads: 2, contextLength: 64 },
  small: { dModel: 64, layers: 2, heads: 4, contextLength: 64 },
  base: { dModel: 128, layers: 4, heads: 4, contextLength: 128 },
  large: { dModel: 256, layers: 4, heads: 8, contextLength: 256 },
  // ~25M parameters: the largest embedded model (issue 29), for the native engine (policy.engine native)
  xl: { dModel: 512, layers: 8, heads: 8, contextLength: 512 },
} as const satisfies Record<string, Omit<ModelConfig, 'vocabSize'>>;

export type ModelPresetName = keyof typeof modelPresets;

/** Validates a config; throws ConfigError listing every problem on one line. */
export function parseModelConfig(value: unknown, where = 'model config'): ModelConfig {
  const result = modelConfigSchema.safeParse(value);
  if (!result.success) {
    const problems = result.error.issues.map(
      (issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`,
    );
    throw new ConfigError(`invalid ${where}: ${problems.join('; ')}`);
  }
  return result.data;
}

/** Number of trainable parameters of a config (matches the tensor list in docs/checkpoint-format.md). */
export function parameterCount(config: ModelConfig): number {
  const { vocabSize: v, dModel: d, layers, contextLength: t } = config;
  const perLayer = 2 * d + (d * 3 * d + 3 * d) + (d * d + d) + 2 * d + (d * 4 * d + 4 * d) + (4 * d * d + d);
  return v * d + t * d + layers * perLayer + 2 * d + d * v;
}
