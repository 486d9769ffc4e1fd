// The `rollout.environment` block of the train config (the run component `environment`,
// components/environment/component.ts): a multi-turn environment every member of a group runs in,
// instead of one sampled completion. Absent = single-turn sampling.
import { z } from 'zod';
import { episodeLimitsSchema } from '../../../environments/limits.ts';
import { calculator } from '../../../environments/tools/calculator.ts';
import type { Tool } from '../../../environments/tools/define.ts';

/** The tools a config can name, by name. */
export const builtinTools: Readonly<Record<string, Tool>> = { calc: calculator };

export const environmentBlockSchema = z
  .strictObject({
    /** 'tag-tools': `<name>input</name>` tool calls for the character model (src/environments/tag-tools.ts). */
    name: z.literal('tag-tools'),
    /** The tools the policy may call: calc (exact integer arithmetic). */
    tools: z
      .array(z.enum(['calc']))
      .min(1)
      .default(['calc']),
    /** Wall-clock ms per tool call. */
    toolTimeoutMs: z.number().int().min(1).default(5000),
    /** Longer tool outputs are cut to this many characters. */
    maxOutputChars: z.number().int().min(1).default(64),
    /** Turns, tokens, timeouts and the parse-error policy of each episode (src/environments/limits.ts). */
    limits: episodeLimitsSchema.default(episodeLimitsSchema.parse({})),
  })
  .optional();

export type EnvironmentBlock = NonNullable<z.output<typeof environmentBlockSchema>>;
