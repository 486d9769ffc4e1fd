// The `algorithm.relift` config block: ReLIFT's SFT phase interleaved with RL (src/training/components/relift/relift.ts).
// Paper: Ma et al., "Learning What Reinforcement Learning Can't: Interleaved Online Fine-Tuning for Hardest
// Questions", arXiv 2506.07527; code TheRoadQaQ/ReLIFT (relift/verl/verl/relift/trainer.py, actor.py,
// fsdp_worker.py, config/relift_trainer.yaml, examples/math-7b/train.sh).
//
// Why `algorithm.relift` and not a guidance entry: ReLIFT changes no attempt (the RL prompts, prefixes and
// groups stay those of the configured scaffold); it adds a training phase after the RL update. It
// therefore combines with any guidance (e.g. `hints` + ReLIFT), as dynamic sampling and the VCRL filter
// (also `algorithm.*` blocks) combine with any selector.
//
// Defaults. The authors' math-7b run (train.sh) and what we use on a ladder run (batch ~16 problems):
//   authors                              here
//   sft_data_size 128 (= batch 128)      sftDataSize null → train.batchSize (the same ratio, 1 batch's worth)
//   sft_mini_batch_size 128              miniBatchSize null → sftDataSize (one optimiser step per SFT update)
//   sft_epochs 1                         epochs 1
//   optim.sft.lr 1e-6 (= RL lr 1e-6)     learningRate null → the RL step's learning rate (the same 1:1
//                                        ratio; 1e-6 is a 7B model's lr, the ladder's RL lr is 1e-4)
//   sft_grad_clip 1.0 (RL: 0.7)          gradClip 1.0
//   entropy_coeff 0.001                  not available: an entropy bonus needs the full next-token
//                                        distribution, which the PolicyBackend contract (Tinker's) does not
//                                        return; the SFT loss here is the NLL alone (see relift.ts)
//   fail_value 0 (reward_impl_version 3) failValue 0
// The authors assert sft_data_size % sft_mini_batch_size == 0; validateRelift does the same.
//
// `entropyTokens` is MIFO's (Yuan et al., "Mitigating Forgetting Between Supervised and Reinforcement
// Learning Yields Stronger Reasoners", arXiv 2510.04454): ReLIFT's interleaved SFT on the problems RL
// failed, with the SFT loss on high-entropy tokens only, so the SFT steps disturb less of what RL learned.
// MIFO's other part, freezing the parameters RL changed most during SFT, is not here: the PolicyBackend's
// optimiser step has no per-parameter mask (Tinker's neither).
import { z } from 'zod';
import { ConfigError } from '../../../core/errors.ts';

const sourceDefaults = { name: 'solutions', options: {} };

const reliftDefaults = {
  enabled: false,
  sftDataSize: null,
  miniBatchSize: null,
  epochs: 1,
  learningRate: null,
  gradClip: 1,
  failValue: 0,
  entropyTokens: null,
  demonstrations: sourceDefaults,
};

export const reliftSchema = z
  .strictObject({
    enabled: z.boolean().default(false),
    /** Buffer items per SFT update (authors: 128 = their batch); null = train.batchSize. */
    sftDataSize: z.number().int().positive().nullable().default(null),
    /** Items per optimiser step inside an SFT update (authors: 128); null = sftDataSize. */
    miniBatchSize: z.number().int().positive().nullable().default(null),
    /** Passes over the SFT items (authors: 1). */
    epochs: z.number().int().positive().default(1),
    /** SFT learning rate (authors: 1e-6, equal to their RL lr); null = the RL step's learning rate. */
    learningRate: z.number().positive().nullable().default(null),
    /** Global gradient-norm clip of the SFT steps (authors' sft_grad_clip: 1.0); 0 disables. */
    gradClip: z.number().min(0).default(1),
    /** A problem enters the buffer when every own member of its group got exactly this reward (authors: 0). */
    failValue: z.number().default(0),
    /**
     * MIFO's token selection (arXiv 2510.04454): the SFT loss only on this top fraction of each
     * minibatch's demonstration tokens by the policy's entropy at their position (relift-sft.ts
     * highEntropyTokens); null = every token (ReLIFT). Needs the full next-token distribution:
     * policy.backend embedded. [unverified] no authors' code found; 0.2 is the 80/20 paper's share.
     */
    entropyTokens: z.number().gt(0).max(1).nullable().default(null),
    /** Where demonstrations come from (relift-demonstrations.ts; default the problems' worked solutions). */
    demonstrations: z
      .strictObject({
        name: z.string().default('solutions'),
        options: z.record(z.string(), z.unknown()).default({}),
      })
      .default(sourceDefaults),
  })
  .default(reliftDefaults);

export type ReliftOptions = z.output<typeof reliftSchema>;

/** The options with every null default resolved against the run's batch size. */
export interface ResolvedReliftOptions extends Omit<ReliftOptions, 'sftDataSize' | 'miniBatchSize'> {
  sftDataSize: number;
  miniBatchSize: number;
}

/** Resolves the nulls and checks what the schema cannot (ConfigError, one line). */
export function resolveReliftOptions(options: ReliftOptions, batchSize: number): ResolvedReliftOptions {
  const sftDataSize = options.sftDataSize ?? batchSize;
  const miniBatchSize = options.miniBatchSize ?? sftDataSize;
  if (sftDataSize % miniBatchSize !== 0) {
    throw new ConfigError(
      `algorithm.relift: miniBatchSize ${miniBatchSize} must divide sftDataSize ${sftDataSize} (as the authors assert), e.g. miniBatchSize ${sftDataSize}`,
    );
  }
  return { ...options, sftDataSize, miniBatchSize };
}
