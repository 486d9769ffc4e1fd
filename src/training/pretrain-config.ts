// The config of `curricula pretrain`: supervised next-token training on worked solutions (cold start).
import { z } from 'zod';
import { boundedCount, sizeLimits } from '../core/size-limits.ts';
import { policyBlockSchema } from '../policy/parallel-options.ts';
import { RUN_NAME_MAX, RUN_NAME_PATTERN, RUN_NAME_RULE } from '../runs/run-name.ts';
import { mixEntrySchema } from '../tasks/problem-mix.ts';
import { modelBlockSchema } from './model-presets.ts';
import { scheduleSchema } from './schedule.ts';

export const optimizerSchema = scheduleSchema.extend({
  betas: z.tuple([z.number().min(0).max(1), z.number().min(0).max(1)]).default([0.9, 0.99]),
  /** Adam ε. A larger value damps the updates of parameters whose gradients are tiny and noisy (RL). */
  eps: z.number().positive().default(1e-8),
  weightDecay: z.number().min(0).default(0),
  /** Global gradient-norm clip; 0 disables. */
  gradClip: z.number().min(0).default(1),
});

export const heldOutEvalSchema = z.strictObject({
  /** Evaluate every N steps (and always at the end); 0 = only at the end. */
  every: z.number().int().nonnegative().default(200),
  /** Held-out problems per (task, difficulty). */
  problemsPerDifficulty: boundedCount(
    sizeLimits.problemsPerDifficulty,
    'held-out problems are generated and sampled each evaluation',
  ).default(50),
  /** Completions per problem; pass@k is reported for powers of two up to this. */
  samples: boundedCount(sizeLimits.samples, 'completions per held-out problem').default(1),
  /** 0 = greedy decoding. */
  temperature: z.number().min(0).default(0),
});

/** Schema of a pretrain config (`curricula pretrain --config`): supervised cold start on worked solutions. */
export const pretrainConfigSchema = z.strictObject({
  /** Run name: the run directory is <runsDir>/<name>. */
  name: z
    .string()
    .max(RUN_NAME_MAX, RUN_NAME_RULE)
    .regex(RUN_NAME_PATTERN, RUN_NAME_RULE)
    .default('pretrain'),
  runsDir: z.string().default('runs'),
  seed: z.number().int().default(0),
  model: modelBlockSchema.default({ preset: 'base' }),
  tasks: z.array(mixEntrySchema).min(1),
  train: optimizerSchema.extend({
    steps: z.number().int().positive(),
    /** Sequences per optimiser step. */
    batchSize: boundedCount(sizeLimits.batchSize, 'sequences per step held in memory').default(32),
  }),
  eval: heldOutEvalSchema.default(heldOutEvalSchema.parse({})),
  checkpoint: z
    .strictObject({
      /** Keep a permanent checkpoint every N steps (0 = none); the latest is always kept. */
      every: z.number().int().nonnegative().default(0),
      /** Save the latest checkpoint every N steps (for resume). */
      latestEvery: z.number().int().positive().default(50),
    })
    .default({ every: 0, latestEvery: 50 }),
  /** How the embedded policy runs (worker threads); absent = auto (one per core), stored as a number. Last, so that
   * the allowed-keys list of an error message keeps its order. */
  policy: policyBlockSchema.optional(),
});

export type PretrainConfig = z.output<typeof pretrainConfigSchema>;
