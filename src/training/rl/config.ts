// The config of `curricula train`: RL fine-tuning (GRPO family) from a cold-start checkpoint.
// Every named part (selector, guidance, reward, advantage, loss) resolves through its registry, and its
// `options` are validated by that part's own schema when the run is set up, before anything is written.
// The run components' blocks (rollout.budget, algorithm.relift, teacher, selfPlay) are theirs
// (components/config-blocks.ts), placed here where the config has always had them.

import { z } from 'zod';
import { entropyBonusSchema } from '../../algorithms/entropy.ts';
import { klAnnealSchema } from '../../algorithms/kl-schedule.ts';
import { vcrlFilterSchema } from '../../algorithms/vcrl-filter.ts';
import { boundedCount, sizeLimits } from '../../core/size-limits.ts';
import { RUN_NAME_MAX, RUN_NAME_PATTERN, RUN_NAME_RULE } from '../../runs/run-name.ts';
import { mixEntrySchema } from '../../tasks/problem-mix.ts';
import { componentBlocks, defaultsOf } from '../components/config-blocks.ts';
import { modelBlockSchema } from '../model-presets.ts';
import { rlPolicyBlockSchema } from '../policy-block.ts';
import { heldOutEvalSchema, optimizerSchema } from '../pretrain-config.ts';
import { poolBlockSchema } from './pool-file.ts';

/**
 * Held-out evaluation during RL samples (4 completions at temperature 1, every 20 steps): the defaults
 * live on each key, so a partial `eval:` block keeps them for the keys it leaves out (pretrain's greedy
 * single-sample defaults would otherwise apply).
 */
const rlEvalSchema = heldOutEvalSchema.extend({
  every: heldOutEvalSchema.shape.every.unwrap().default(20),
  samples: heldOutEvalSchema.shape.samples.unwrap().default(4),
  temperature: heldOutEvalSchema.shape.temperature.unwrap().default(1),
});

const namedPart = (defaultName: string) =>
  z
    .strictObject({
      name: z.string().default(defaultName),
      options: z.record(z.string(), z.unknown()).default({}),
    })
    .default({ name: defaultName, options: {} });

export const rlConfigSchema = z.strictObject({
  name: z.string().max(RUN_NAME_MAX, RUN_NAME_RULE).regex(RUN_NAME_PATTERN, RUN_NAME_RULE).default('train'),
  runsDir: z.string().default('runs'),
  seed: z.number().int().default(0),
  /** Start from this checkpoint (run, checkpoint or model directory); without it, from a fresh `model`. */
  init: z.strictObject({ checkpoint: z.string() }).optional(),
  model: modelBlockSchema.optional(),
  /** The training distribution: the pool is drawn from it (never from the held-out partition), unless
   * `pool.file` gives the pool; held-out evaluation always draws from it. */
  tasks: z.array(mixEntrySchema).min(1),
  /** Number of distinct training problems the selector chooses from (not used with `pool.file`). */
  poolSize: boundedCount(sizeLimits.poolSize, 'drawing a pool takes up to 20 draws per problem').default(
    2000,
  ),
  /** The pool as a JSONL problem set instead of drawn from `tasks` (src/training/rl/pool-file.ts). */
  pool: poolBlockSchema.optional(),
  selector: namedPart('uniform'),
  guidance: namedPart('identity'),
  reward: namedPart('verifier'),
  rollout: z
    .strictObject({
      /** Completions per problem (G). */
      groupSize: boundedCount(sizeLimits.groupSize, 'completions per problem held in memory').default(8),
      temperature: z.number().positive().default(1),
      topP: z.number().gt(0).max(1).default(1),
      /** Completion length cap (also bounded by the model's context). */
      maxTokens: boundedCount(sizeLimits.maxTokens, 'tokens per completion').default(96),
      ...componentBlocks.rollout,
    })
    .default({
      groupSize: 8,
      temperature: 1,
      topP: 1,
      maxTokens: 96,
      ...defaultsOf(componentBlocks.rollout),
    }),
  algorithm: z
    .strictObject({
      advantage: namedPart('grpo'),
      loss: namedPart('ppo-clip'),
      kl: z
        .strictObject({
          /** β; 0 disables the reference policy entirely. */
          coefficient: z.number().min(0).default(0),
          estimator: z.enum(['k1', 'k2', 'k3']).default('k3'),
          /** 'loss': β·KL added to the loss (GRPO); 'reward': subtracted from the reward (PPO/RLHF). */
          mode: z.enum(['loss', 'reward']).default('loss'),
          /**
           * Load the frozen reference even at coefficient 0 and log the KL to it (kl/ref_*), with no
           * penalty: the x-axis of a reward over-optimisation curve (Gao et al.).
           */
          monitor: z.boolean().default(false),
          /**
           * The reference policy: a checkpoint (a run directory or its model directory) with the policy's
           * tokenizer; absent = the initial policy. A stronger teacher here with estimator k2 and mode loss
           * is KDRL's reverse-KL distillation term.
           */
          reference: z.string().min(1).optional(),
          /** KDRL's reward-guided KD: no KL term on samples with reward ≥ 1 (mode loss only). */
          rewardGuided: z.boolean().default(false),
          /**
           * ReMix's KL-Convex constraint: this share w of β goes to the KL to each sequence's behaviour
           * policy (its π_old), the rest to the reference: β·[(1 − w)·KL(π‖ref) + w·KL(π‖π_old)]
           * (src/algorithms/kl-convex.ts); absent = 0. Mode loss only.
           */
          precedent: z.number().min(0).max(1).optional(),
          /** KDRL's KL-coefficient annealing: β moves linearly from `coefficient` to `to` (kl-schedule.ts). */
          anneal: klAnnealSchema.optional(),
        })
        .default({ coefficient: 0, estimator: 'k3', mode: 'loss', monitor: false, rewardGuided: false }),
      /** Entropy bonus −β·aggregate(H) added to the policy loss (src/algorithms/entropy.ts); β 0 = off. */
      entropy: entropyBonusSchema,
      /** Optimisation passes over each batch. */
      epochs: z.number().int().positive().default(1),
      /** Minibatches per epoch (each is one optimiser step). */
      minibatches: z.number().int().positive().default(1),
      /** DAPO dynamic sampling: drop groups whose rewards are all equal and sample more problems. */
      dynamicSampling: z
        .strictObject({
          enabled: z.boolean().default(false),
          /** Extra sampling rounds per step before training on a partial batch. */
          maxRounds: z.number().int().nonnegative().default(3),
        })
        .default({ enabled: false, maxRounds: 3 }),
      /** VCRL: drop groups whose normalised reward variance is below a threshold and sample more problems. */
      vcrlFilter: vcrlFilterSchema,
      ...componentBlocks.algorithm,
    })
    .default({
      advantage: { name: 'grpo', options: {} },
      loss: { name: 'ppo-clip', options: {} },
      kl: { coefficient: 0, estimator: 'k3', mode: 'loss', monitor: false, rewardGuided: false },
      entropy: { coefficient: 0, estimator: 'exact' },
      epochs: 1,
      minibatches: 1,
      dynamicSampling: { enabled: false, maxRounds: 3 },
      vcrlFilter: { enabled: false, threshold: 0.3, maxRounds: 3 },
      ...defaultsOf(componentBlocks.algorithm),
    }),
  train: optimizerSchema.extend({
    steps: z.number().int().positive(),
    /** Problems per step (each gets groupSize completions). */
    batchSize: boundedCount(sizeLimits.batchSize, 'problems per step held in memory').default(16),
  }),
  eval: rlEvalSchema.default(rlEvalSchema.parse({})),
  checkpoint: z
    .strictObject({
      /** Keep a permanent checkpoint every N steps (0 = none). */
      every: z.number().int().nonnegative().default(0),
      /** Refresh the latest checkpoint every N steps; resume replays at most N-1 steps. */
      latestEvery: z.number().int().positive().default(5),
    })
    .default({ every: 0, latestEvery: 5 }),
  log: z
    .strictObject({
      /** Completions stored per step in the run store (with rewards and reasons). */
      samplesPerStep: z.number().int().nonnegative().default(8),
      /** Store each stored completion's per-token log-probs and token pieces (the dashboard's colours). */
      sampleTokens: z.boolean().default(true),
    })
    .default({ samplesPerStep: 8, sampleTokens: true }),
  /** Which backend runs the policy (policy-block.ts; absent = embedded) and how the embedded policy runs
   * (worker threads). Last, so that the allowed-keys list of an error message keeps its order. */
  policy: rlPolicyBlockSchema.optional(),
  ...componentBlocks.root,
});

export type RlConfig = z.output<typeof rlConfigSchema>;

export { rolloutBudgetSchema } from '../components/rollout-budget/rollout-budget-options.ts';
