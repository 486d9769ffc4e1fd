// The `selfPlay:` block of the RL config (issue 16 item 4): every N steps a generator policy proposes K
// problems in a task's grammar; each is screened (screen.ts), then admitted only at the student's edge of
// competence (admission.ts), and admitted problems join a bounded generated pool (pool.ts).
// Off when the block is absent.
//
// Defaults and where they come from (the authors' code was searched for and not found in the index, so
// these follow the papers' text, not their code — a deviation to revisit):
// - admit band [0.2, 0.8] over 8 samples: SeRL ¶88 (difficulty filtering drops self-instructions that the
//   model answers almost always or almost never; its band is 0.2–0.8).
// - reward 'hard-but-solvable': Tool-R0 ¶118 (generator reward peaks at a middling solver pass rate and is
//   0 for invalid or unsolvable proposals); here a triangle with its peak at the band's centre.
import { z } from 'zod';

export const generatorRewards = ['hard-but-solvable', 'admitted'] as const;

export const selfPlaySchema = z
  .strictObject({
    /** Run a generator round every this many RL steps. */
    every: z.number().int().positive().default(10),
    /** Problem statements proposed per round. */
    proposals: z.number().int().positive().default(8),
    /** Which policy writes problems: the student itself, or a frozen checkpoint (path). */
    generator: z
      .union([z.literal('policy'), z.strictObject({ checkpoint: z.string().min(1) })])
      .default('policy'),
    /** Which tasks the generator writes for (default: every task of the run that supports parseProblem). */
    tasks: z.array(z.string()).optional(),
    /** Few-shot examples (the task's own training problems) in the generator prompt. */
    examples: z.number().int().min(0).max(16).default(3),
    admit: z
      .strictObject({
        /** Lowest student pass rate admitted (inclusive). */
        minPass: z.number().min(0).max(1).default(0.2),
        /** Highest student pass rate admitted (inclusive). */
        maxPass: z.number().min(0).max(1).default(0.8),
        /** Student attempts per proposal to measure its pass rate. */
        samples: z.number().int().positive().default(8),
      })
      .refine((admit) => admit.minPass <= admit.maxPass, { message: 'admit.minPass must be ≤ admit.maxPass' })
      .default({ minPass: 0.2, maxPass: 0.8, samples: 8 }),
    /** How each proposal is scored for the generator (selfplay/generator_reward; trained on with
     * trainGenerator). */
    reward: z.enum(generatorRewards).default('hard-but-solvable'),
    /** Train the generator (the student itself) by the same RL update on its own statements: each
     * generator prompt then gets rollout.groupSize statements (a GRPO group), rewarded by `reward`. */
    trainGenerator: z.boolean().default(false),
    /** Most generated problems kept; the oldest leave first. */
    poolLimit: z.number().int().positive().default(256),
  })
  .optional();

export type SelfPlayConfig = NonNullable<z.output<typeof selfPlaySchema>>;
export type SelfPlayInput = z.input<typeof selfPlaySchema>;
