// The reward registry: config names ('math-answer', 'code-tests', …) resolve to factories here. Every
// factory has the same signature: it validates its options (zod) and throws ConfigError on bad ones, so
// the training loop never branches on a reward's name. A self-reward takes the policy from `context`. Entries are registered in ./index.ts.
import { Registry } from '../core/registry.ts';
import type { Reward, RewardContext } from '../core/reward.ts';

/**
 * Builds a reward from a config's `reward.options` (validated; ConfigError on bad ones); `context.policy`
 * is the policy being trained, for self-rewards (only the RL loop passes it).
 */
export type RewardFactory = (options: unknown, context?: RewardContext) => Reward;

export const rewards = new Registry<RewardFactory>('reward');
