// The `algorithm.remix` block of the train config (component.ts): ReMix's mix-policy proximal policy
// gradient and policy reincarnation (Liang et al., "Squeeze the Soaked Sponge: Efficient Off-policy
// Reinforcement Finetuning for Large Language Model", arXiv 2507.06892). Its third part, the KL-Convex
// constraint, is the KL term's `algorithm.kl.precedent` (src/algorithms/kl.ts), since it is a KL term.
// [unverified] defaults: the authors' public code (AnitaLeungxx/ReMix-Off-Policy-RFT) holds their
// evaluation and a stock verl trainer, not the off-policy training code, so no default here comes from
// it; each is the smallest setting that exercises the method, stated so in docs/algorithms.md.
import { z } from 'zod';

export const remixSchema = z
  .strictObject({
    /**
     * Past steps whose trained groups are replayed beside this step's batch: the behaviour policies
     * θ_{k−1} … θ_{k−history} of the mix-policy objective. [unverified] default 1.
     */
    history: z.number().int().min(1).max(64).default(1),
    /** At most this many replayed groups per step, newest step first; absent = every buffered group. */
    groups: z.number().int().min(1).optional(),
    /**
     * Policy reincarnation: from this step on nothing is replayed (the buffer is emptied) and training is
     * on-policy; absent = never. The authors also make the policy at that step the new base model of the
     * KL term; here the reference stays the initial policy (stated in docs/algorithms.md).
     */
    reincarnateAt: z.number().int().min(1).optional(),
  })
  .optional();

export type RemixOptions = NonNullable<z.output<typeof remixSchema>>;
