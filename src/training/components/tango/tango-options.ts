// The `tango` block of the train config (component.ts): a generative verifier trained by RL next to the
// policy. Defaults are ours where the paper gives none for this scale (its code is not released; the
// repository holds only its README): one verifier update per policy step (the paper interleaves the two),
// 4 verdicts per judged completion (the verifier's GRPO group), the process reward weighted like the
// outcome (weight 1).
import { z } from 'zod';

export const tangoSchema = z
  .strictObject({
    /** The verifier's starting checkpoint; absent: the run's init checkpoint (the paper starts both from one base). */
    checkpoint: z.string().min(1).optional(),
    /** Verdicts sampled per judged completion: the verifier's group. */
    samples: z.number().int().min(2).max(64).default(4),
    /** Weight of the verifier's process reward added to the run's (outcome) reward. */
    processWeight: z.number().min(0).default(1),
    /** The verifier's sampling temperature. */
    temperature: z.number().gt(0).max(2).default(1),
    /** The verifier's peak learning rate; it follows the policy's schedule (warm-up, decay) in proportion. */
    learningRate: z.number().min(0).default(1e-4),
    /** Train the verifier every this many policy steps (it judges every step). */
    every: z.number().int().positive().default(1),
    /** A malformed verdict's reward: this × the share of its letters that are Y or N (a format reward). */
    formatCredit: z.number().min(0).max(1).default(0.2),
    /** The verdict letter for a step judged right, and for one judged wrong (one character each). */
    right: z.string().regex(/^\S$/u, 'one non-space character').default('Y'),
    wrong: z.string().regex(/^\S$/u, 'one non-space character').default('N'),
    /** Appended after prompt + completion: the verifier writes its verdicts after it. */
    suffix: z.string().min(1).default('\nV:'),
  })
  .refine((options) => options.right !== options.wrong, 'right and wrong must be different letters')
  .optional();

export type TangoOptions = NonNullable<z.output<typeof tangoSchema>>;
