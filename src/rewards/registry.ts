// The reward registry's types: config names ('math-answer', 'code-tests', …) resolve to factories. Every
// factory has the same signature: it validates its options (zod) and throws ConfigError on bad ones, so
// the training loop never branches on a reward's name. A self-reward takes the policy from `context`; a
// reward that wraps others (composite, calibration) looks their names up in `context.rewards`, which a
// RewardRegistry sets to itself, so nested names resolve in the same instance. Built-ins: ./index.ts.

import type { PluginInfo } from '../core/plugin.ts';
import { definePlugin, type Plugin, type PluginSpec } from '../core/plugin.ts';
import { Registry, type RegistryOrigin } from '../core/registry.ts';
import type { Reward, RewardContext } from '../core/reward.ts';

/** Where a wrapping reward looks up the rewards it wraps. */
export interface RewardLookup {
  get(name: string): RewardFactory;
}

/** What a reward factory is given besides its options. */
export interface RewardFactoryContext extends RewardContext {
  /** The registry the factory was looked up in (set by RewardRegistry). */
  rewards?: RewardLookup;
}

/**
 * Builds a reward from a config's `reward.options` (validated; ConfigError on bad ones); `context.policy`
 * is the policy being trained, for self-rewards (only the RL loop passes it).
 */
export type RewardFactory = (options: unknown, context?: RewardFactoryContext) => Reward;

/** A reward plug-in: its fields and the factory its registry hands out. */
export type RewardPlugin = Plugin<RewardFactory>;

/** Defines a reward: `{ id, description, paper, optionsSchema, create: (options, context) => Reward }`. */
export function defineReward(spec: PluginSpec<RewardFactory>): RewardPlugin {
  return definePlugin('reward', spec);
}

/** A registry of rewards whose factories see the registry itself as `context.rewards` (unless given one). */
export class RewardRegistry extends Registry<RewardFactory> {
  override register(name: string, factory: RewardFactory, origin?: RegistryOrigin, info?: PluginInfo): this {
    const bound: RewardFactory = (options, context) =>
      factory(options, context?.rewards === undefined ? { ...context, rewards: this } : context);
    return super.register(name, bound, origin, info);
  }
}
