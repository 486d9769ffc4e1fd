// `curricula/rewards`: the Reward contract (score a batch of completions, say why), the names of the
// built-in rewards, and registerReward for a user's own.
import { rewards } from '../rewards/index.ts';

export type { Reward, RewardInput, RewardResult } from '../core/reward.ts';
export type { RewardFactory } from '../rewards/registry.ts';
export { defineReward, type RewardPlugin } from '../rewards/registry.ts';
export { type RegisterOptions, registerPlugin, registerReward } from './register.ts';

/** Names of the rewards registered now (built-in ones, and any a script registered), sorted. */
export function rewardNames(): string[] {
  return rewards.names();
}
