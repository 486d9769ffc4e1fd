// DAPO's soft overlong punishment ("DAPO: An Open-Source LLM Reinforcement Learning System at Scale",
// Yu et al., arXiv 2503.14476, Eq. 13), and the `overlong` reward that applies it on its own:
//
//   R_length(y) = 0                                   if |y| ≤ L_max − L_cache
//               = ((L_max − L_cache) − |y|) / L_cache if L_max − L_cache < |y| ≤ L_max
//               = −1                                  if |y| > L_max
//
// times `factor` (verl's overlong_buffer.penalty_factor). Defaults from the DAPO recipe: L_max = 20480
// (max_response_length), L_cache = 4096 (overlong_buffer.len), factor 1.0. |y| is measured in characters
// unless a token counter is given; for the embedded model one character is one token.
// Deviation: verl's recipe computes min(−(|y| − (L_max − L_cache)) / L_cache · factor, 0) without the −1
// floor, because its responses cannot exceed L_max; here lengths can (characters, remote engines), so the
// paper's −1 floor applies. Both agree for |y| ≤ L_max.
import { z } from 'zod';
import { parseConfig } from '../../core/config.ts';
import { ConfigError } from '../../core/errors.ts';
import type { Reward, RewardResult } from '../../core/reward.ts';
import { defineReward } from '../registry.ts';

export const overlongOptionsSchema = z.strictObject({
  /** L_max: the maximum length (characters, or tokens with a token counter). */
  maxLength: z.number().int().positive().default(20480),
  /** L_cache: the soft-penalty zone at the end of the allowed length. */
  cache: z.number().int().positive().default(4096),
  /** Scale of the penalty (−factor at L_max and beyond). */
  factor: z.number().nonnegative().default(1),
  /** 'chars' or 'tokens' (tokens need a token counter, given in code). */
  unit: z.enum(['chars', 'tokens']).default('chars'),
});

export type OverlongOptions = z.output<typeof overlongOptionsSchema>;

/** Counts the tokens of a completion (e.g. the policy's tokenizer). */
export type TokenCounter = (text: string) => number;

/** The DAPO length penalty for a length, in [−factor, 0]. */
export function overlongPenalty(
  length: number,
  options: Pick<OverlongOptions, 'maxLength' | 'cache' | 'factor'>,
): number {
  const { maxLength, cache, factor } = options;
  const expected = maxLength - cache;
  if (length <= expected) return 0;
  if (length > maxLength) return -factor;
  return ((expected - length) / cache) * factor;
}

/** Validates overlong options (cache ≤ maxLength; tokens need a counter) and returns a length function. */
export function resolveOverlong(
  options: unknown,
  source: string,
  countTokens?: TokenCounter,
): { options: OverlongOptions; measure: TokenCounter } {
  const parsed = parseConfig(overlongOptionsSchema, options ?? {}, source);
  if (parsed.cache > parsed.maxLength) {
    throw new ConfigError(
      `${source}: cache (${parsed.cache}) must not exceed maxLength (${parsed.maxLength})`,
    );
  }
  if (parsed.unit === 'tokens' && countTokens === undefined) {
    throw new ConfigError(
      `${source}: unit 'tokens' needs a token counter, which only code can pass; use unit 'chars' (one token per character for the embedded model)`,
    );
  }
  return {
    options: parsed,
    measure: parsed.unit === 'tokens' ? (countTokens as TokenCounter) : (text) => text.length,
  };
}

/** The `overlong` reward: just the length penalty (0 for completions short enough). */
export function createOverlongReward(options: unknown, deps: { countTokens?: TokenCounter } = {}): Reward {
  const { options: resolved, measure } = resolveOverlong(
    options,
    "reward 'overlong' options",
    deps.countTokens,
  );
  return {
    name: 'overlong',
    async score(inputs) {
      return inputs.map(({ completion }): RewardResult => {
        const length = measure(completion);
        const penalty = overlongPenalty(length, resolved);
        const result: RewardResult = { reward: penalty, components: { length, penalty } };
        if (penalty < 0)
          result.reason = `overlong: ${length} ${resolved.unit} (soft limit ${resolved.maxLength - resolved.cache}, max ${resolved.maxLength})`;
        return result;
      });
    },
  };
}

export const overlongReward = defineReward({
  id: 'overlong',
  description: "DAPO's soft overlong punishment on its own: 0 up to L_max − L_cache, then linear down to −1",
  paper: { title: 'DAPO: An Open-Source LLM Reinforcement Learning System at Scale', arxiv: '2503.14476' },
  optionsSchema: overlongOptionsSchema,
  create: (options) => createOverlongReward(options),
});
