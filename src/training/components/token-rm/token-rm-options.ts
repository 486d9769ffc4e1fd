// The `algorithm.tokenRewardModel` block of the train config (component.ts): OREAL's token-level reward
// model (arXiv 2502.06781; InternLM/OREAL train_oreal.py and the `w_tokenrm` configs). Defaults from the
// authors' configs: threshold_rescale with correct_threshold 0.5 and incorrect_threshold 0.5, weight decay
// 0.01, gradient clip 1 (max_grad_norm); the learning rate is ours: the authors' token_level_rm_lr 2e-6
// (cosine to 4e-7) is a 7B model's, and like the critic here it takes a small model's rate, constant.
import { z } from 'zod';

export const tokenRewardModelSchema = z
  .strictObject({
    /** The model's starting checkpoint (a policy checkpoint: its trunk); absent = the run's init. */
    checkpoint: z.string().min(1).optional(),
    /** Learning rate, constant (authors: 2e-6 with a cosine for 7B; see the header). */
    learningRate: z.number().min(0).default(1e-4),
    /** correct_threshold: w⁺ = clamp((p − τ⁺)/(1 − τ⁺), 0, 1) on correct samples (authors: 0.5). */
    correctThreshold: z.number().min(0).lt(1).default(0.5),
    /** incorrect_threshold: w⁻ = clamp(((1 − p) − τ⁻)/(1 − τ⁻), 0, 1) on wrong samples (authors: 0.5). */
    incorrectThreshold: z.number().min(0).lt(1).default(0.5),
    /** AdamW weight decay (authors' wd: 0.01). */
    weightDecay: z.number().min(0).default(0.01),
    /** Gradient-norm clip; 0 = none (authors' max_grad_norm: 1). */
    gradClip: z.number().min(0).default(1),
    /** A sample is correct (label 1) when its reward is at least this. */
    positiveReward: z.number().default(1),
    /** Seed of the fresh score head's init; absent = the run's seed. */
    seed: z.number().int().optional(),
  })
  .optional();

export type TokenRewardModelOptions = NonNullable<z.output<typeof tokenRewardModelSchema>>;
