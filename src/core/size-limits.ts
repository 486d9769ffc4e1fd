// Upper bounds on the sizes a config or a command line may ask for, so that a typo (`batchSize:
// 1000000000`, `poolSize: 1e12`, `--problems 1000000000`) is one clear line and exit 2 before anything
// heavy starts, instead of memory growing or a loop running for hours without a word. Each bound is named
// in the schema's error message and in docs/config.md. They are far above what any shipped config uses
// (batchSize ≤ 32, groupSize ≤ 8, maxTokens ≤ 1000, poolSize ≤ 4000, problemsPerDifficulty ≤ 100) and
// sized so that the worst case each allows still fits in memory and time:
//
// - completions per step, batchSize × groupSize ≤ 65,536, and tokens per step, batchSize × groupSize ×
//   maxTokens ≤ 16,777,216 (2^24: a large remote recipe, 128 problems × 16 samples × 8192 tokens, fits):
//   a step holds every sampled token with its two log-probs (about 30 bytes each in JavaScript arrays,
//   ≈ 0.5 GB at the bound);
// - the embedded policy samples a step's completions in one batch, holding a KV cache of
//   layers × 2 × contextLength × dModel × 4 bytes per completion: that product is checked against half
//   of this machine's memory (os.totalmem) once the model's shape is known (checkSamplingMemory);
// - poolSize ≤ 100,000: drawing a pool takes up to 20 draws per distinct problem;
// - held-out problemsPerDifficulty ≤ 10,000 and samples per problem ≤ 1024.
// policy.workers has its own bound (MAX_WORKERS in src/policy/parallel-options.ts).
import { totalmem } from 'node:os';
import { z } from 'zod';
import { ConfigError } from './errors.ts';

export const sizeLimits = {
  batchSize: 4096,
  groupSize: 1024,
  maxTokens: 32_768,
  completionsPerStep: 65_536,
  tokensPerStep: 2 ** 24,
  poolSize: 100_000,
  problemsPerDifficulty: 10_000,
  samples: 1024,
} as const;

/** A positive integer at most `max`; the message names the bound and why there is one. */
export function boundedCount(max: number, what: string) {
  return z
    .number()
    .int()
    .positive()
    .max(max, `must be at most ${max.toLocaleString('en-US')} (${what})`);
}

const gib = (bytes: number) => `${(bytes / 2 ** 30).toFixed(1)} GiB`;

/**
 * batchSize × groupSize (completions per step) and × maxTokens (tokens per step) against the per-step
 * budgets: a ConfigError naming the product, its parts and the budget. (The adaptive rollout budget
 * spreads the same total over the problems; dynamic sampling's extra rounds come one at a time.)
 */
export function checkStepBudget(config: {
  train: { batchSize: number };
  rollout: { groupSize: number; maxTokens: number };
}): void {
  const { batchSize } = config.train;
  const { groupSize, maxTokens } = config.rollout;
  const n = (value: number) => value.toLocaleString('en-US');
  const completions = batchSize * groupSize;
  if (completions > sizeLimits.completionsPerStep) {
    throw new ConfigError(
      `train.batchSize × rollout.groupSize = ${batchSize} × ${groupSize} = ${n(completions)} completions per step, over the limit of ${n(sizeLimits.completionsPerStep)} (a step holds them all in memory); lower train.batchSize or rollout.groupSize`,
    );
  }
  const tokens = completions * maxTokens;
  if (tokens > sizeLimits.tokensPerStep) {
    throw new ConfigError(
      `train.batchSize × rollout.groupSize × rollout.maxTokens = ${batchSize} × ${groupSize} × ${maxTokens} = ${n(tokens)} tokens per step, over the budget of ${n(sizeLimits.tokensPerStep)} (2^24, about 30 bytes of memory each); lower one of them`,
    );
  }
}

export interface ModelDims {
  layers: number;
  dModel: number;
  contextLength: number;
}

/** KV-cache bytes of one sampled completion of the embedded policy (float32 keys and values). */
export function kvBytesPerCompletion(model: ModelDims): number {
  return model.layers * 2 * model.contextLength * model.dModel * 4;
}

/**
 * The embedded policy samples `completions` at once: their KV cache must fit in half of this machine's
 * memory. `memory` is for tests.
 */
export function checkSamplingMemory(
  completions: number,
  model: ModelDims,
  what: string,
  memory = totalmem(),
): void {
  const bytes = completions * kvBytesPerCompletion(model);
  const budget = memory / 2;
  if (bytes <= budget) return;
  throw new ConfigError(
    `${what}: sampling ${completions.toLocaleString('en-US')} completions at once needs a KV cache of ${gib(bytes)} (${model.layers} layers × 2 × context ${model.contextLength} × dModel ${model.dModel} × 4 bytes each), over the budget of ${gib(budget)} (half of this machine's ${gib(memory)} of memory); lower it`,
  );
}

/**
 * A fresh model's parameters (≈ 12 · layers · dModel² + (vocab + context) · dModel) in float32, four times
 * over (weights, gradients, Adam's two moments), must fit in half of this machine's memory: `model:
 * {dModel: 8192, layers: 64}` is refused here instead of allocating hundreds of GB. `memory` is for tests.
 */
export function checkModelMemory(
  model: ModelDims,
  vocabSize: number,
  what: string,
  memory = totalmem(),
): void {
  const params = 12 * model.layers * model.dModel ** 2 + (vocabSize + model.contextLength) * model.dModel;
  const bytes = params * 4 * 4;
  const budget = memory / 2;
  if (bytes <= budget) return;
  throw new ConfigError(
    `${what}: a model of ${model.layers} layers × dModel ${model.dModel} has about ${(params / 1e9).toFixed(1)} billion parameters, ${gib(bytes)} with gradients and optimizer state, over the budget of ${gib(budget)} (half of this machine's ${gib(memory)} of memory); choose a smaller model`,
  );
}
