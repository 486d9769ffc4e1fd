// The limits of an episode and the parse-error policy (issue 30), after tinker-cookbook's RolloutLimits
// (tinker_cookbook/rl/rollout_limits.py: max_turns, max_turn_tokens, max_trajectory_tokens,
// rollout_timeout_seconds) and ParseErrorPolicy, and verl's max_tool_response_length (256) with
// tool_response_truncate_side 'middle' (verl/trainer/config/rollout/rollout.yaml). Defaults are ours,
// sized for the embedded model's 128-token context: tinker-cookbook leaves most limits unset.
import { z } from 'zod';
import { ConfigError } from '../core/errors.ts';

export const parseErrorPolicies = ['respond', 'end', 'zero'] as const;
/**
 * What a malformed call does: 'respond' (the environment's error message is appended and the episode
 * goes on), 'end' (the episode ends, its rewards kept), 'zero' (the episode ends and its return is 0).
 */
export type ParseErrorPolicy = (typeof parseErrorPolicies)[number];

/** The zod schema of an episode's limits (defaults filled, unknown keys refused). */
export const episodeLimitsSchema = z
  .object({
    /** Most policy turns per episode. */
    maxTurns: z.number().int().min(1).max(1000).default(4),
    /** Most tokens one turn may sample. */
    maxTurnTokens: z.number().int().min(1).default(64),
    /** Most tokens of the whole episode (observations included); the policy's context caps it too. */
    maxEpisodeTokens: z.number().int().min(2).optional(),
    /** Observations longer than this are cut in the middle (head and tail kept). */
    maxObservationTokens: z.number().int().min(1).default(64),
    /** Wall-clock ms an environment's step (or initial observation) may take before the episode ends. */
    stepTimeoutMs: z.number().int().min(1).default(10_000),
    parseErrors: z.enum(parseErrorPolicies).default('respond'),
  })
  .strict();

/** The limits of an episode and its parse-error policy (episodeLimitsSchema's output). */
export type EpisodeLimits = z.output<typeof episodeLimitsSchema>;

/** The limits from a config's value (defaults filled); ConfigError naming every bad key. */
export function parseEpisodeLimits(value: unknown, where = 'episode limits'): EpisodeLimits {
  const parsed = episodeLimitsSchema.safeParse(value ?? {});
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map(
    (issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`,
  );
  throw new ConfigError(`invalid ${where}: ${problems.join('; ')}`);
}

/** The first and last tokens of an observation longer than `most` (half each, the head one longer). */
export function truncateMiddle(tokens: readonly number[], most: number): number[] {
  if (tokens.length <= most) return [...tokens];
  const head = Math.ceil(most / 2);
  return [...tokens.slice(0, head), ...tokens.slice(tokens.length - (most - head))];
}
