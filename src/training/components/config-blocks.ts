// The run components' blocks of the `curricula train` config, each with the schema its feature owns,
// grouped by where the block sits: `rollout.<key>`, `algorithm.<key>` or the top level (`<key>`, after
// every core key, so error messages list the core keys first). rl/config.ts composes them into
// rlConfigSchema; each definition names its block (definition.ts `block`), and a test checks that every
// block belongs to a component and every named block exists. A new feature with options adds its block
// here and its definition in index.ts. (A definition cannot carry its schema itself: definitions read
// the composed config, so the schema list must sit below them.)
import type { z } from 'zod';
import { environmentBlockSchema } from '../../environments/block.ts';
import { selfPlaySchema } from '../../selfplay/config.ts';
import { criticSchema } from './critic/critic-options.ts';
import { reliftSchema } from './relift/relift-options.ts';
import { remixSchema } from './remix/remix-options.ts';
import { rolloutBudgetSchema } from './rollout-budget/rollout-budget-options.ts';
import { tangoSchema } from './tango/tango-options.ts';
import { teacherBlockSchema } from './teachers/teacher-config.ts';
import { tokenRewardModelSchema } from './token-rm/token-rm-options.ts';

export const componentBlocks = {
  rollout: {
    /** Adaptive rollout budget: samples per problem follow its uncertainty under a fixed total. */
    budget: rolloutBudgetSchema,
    /** A multi-turn environment with tools for every group member (src/environments); absent = single-turn. */
    environment: environmentBlockSchema,
  },
  algorithm: {
    /** ReLIFT: SFT on the demonstrations of problems no sample solved, interleaved with RL (relift.ts). */
    relift: reliftSchema,
    /** A learned value model for GAE advantages (components/critic); absent = none. */
    critic: criticSchema,
    /** OREAL's token-level reward model weighting each token's advantage (components/token-rm); absent = none. */
    tokenRewardModel: tokenRewardModelSchema,
    /** ReMix: the trained groups of past steps replayed with their behaviour log-probs (components/remix); absent = off. */
    remix: remixSchema,
  },
  root: {
    /** Teachers (frozen policies) and on-policy distillation from them (teacher-config.ts); absent = none. */
    teacher: teacherBlockSchema.optional(),
    /** Self-play: the policy writes practice problems; admitted ones join the pool (src/selfplay); absent = off. */
    selfPlay: selfPlaySchema,
    /** Tango: a generative process verifier trained by RL beside the policy (components/tango); absent = off. */
    tango: tangoSchema,
  },
} as const;

/** Where a block sits, as a definition names it: 'rollout.budget', 'algorithm.relift', 'teacher', … */
export function blockPaths(): string[] {
  return Object.entries(componentBlocks).flatMap(([group, blocks]) =>
    Object.keys(blocks).map((key) => (group === 'root' ? key : `${group}.${key}`)),
  );
}

/** The schema of the block at `path` (blockPaths' form); undefined when there is none. */
export function blockSchema(path: string): z.ZodType | undefined {
  const [group, key] = path.includes('.') ? path.split('.') : ['root', path];
  return (componentBlocks as Record<string, Record<string, z.ZodType>>)[group]?.[key];
}

/** The defaults of a group of blocks (its parent's default when the user leaves the parent out). */
export function defaultsOf<T extends Record<string, z.ZodType>>(
  blocks: T,
): { [K in keyof T]: z.output<T[K]> } {
  return Object.fromEntries(
    Object.entries(blocks).map(([key, schema]) => [key, schema.parse(undefined)]),
  ) as { [K in keyof T]: z.output<T[K]> };
}
