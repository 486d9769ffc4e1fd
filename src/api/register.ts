// Registration of a user's plug-ins into the registries the built-ins use (src/tasks, src/rewards,
// src/curricula, src/guidance, src/algorithms), so a config names a user's reward, task, selector,
// scaffold, advantage estimator or loss exactly as it names a built-in one. A name that is taken fails
// with a ConfigError naming both entries: 'built-in', or where the first was registered from (file and
// line of the caller). A module that runs again (hot reload: imported again under another query string)
// or the same call made again replaces its entry (src/core/registry.ts). Registration is per process:
// register before calling `train`.
// `registerPlugin` takes any plug-in made by a define* wrapper (src/core/plugin.ts: defineTask,
// defineReward, defineSelector, defineGuidance, defineAdvantage, defineLoss, definePolicyBackend), so
// its description, paper and options schema travel with it (docs/methods.md lists registered plug-ins).
// The registries are the default instances (src/training/registries.ts), created on first use.
import type { AdvantageEstimator } from '../algorithms/advantages/index.ts';
import { advantageEstimators } from '../algorithms/advantages/index.ts';
import { type PolicyLoss, policyLosses } from '../algorithms/losses/index.ts';
import { ConfigError } from '../core/errors.ts';
import type { Plugin, PluginInfo } from '../core/plugin.ts';
import type { Reward } from '../core/reward.ts';
import { type SelectorFactory, selectors } from '../curricula/index.ts';
import { type GuidanceFactory, guidances } from '../guidance/index.ts';
import { type RewardFactory, rewards } from '../rewards/index.ts';
import { tasks } from '../tasks/index.ts';
import type { Task } from '../tasks/task.ts';
import type { PolicyBackendFactory } from '../training/policy-backends.ts';
import { defaultRegistries } from '../training/registries.ts';

/** Where a registration came from, for the duplicate-name message. */
export interface RegisterOptions {
  /** Describes the plug-in's origin (default: the caller's file and line). */
  origin?: string;
}

/** "registered at <file>:<line>:<column>" of the first stack frame outside this file. */
function callerOrigin(): string {
  const frames = (new Error().stack ?? '').split('\n').slice(1);
  const here = frames[0]?.match(/\((.*):\d+:\d+\)$/)?.[1] ?? frames[0]?.match(/at (.*):\d+:\d+$/)?.[1];
  for (const frame of frames) {
    const location = frame.match(/\((.*:\d+:\d+)\)$/)?.[1] ?? frame.match(/at (.*:\d+:\d+)$/)?.[1];
    if (location && (here === undefined || !location.startsWith(`${here}:`)))
      return `registered at ${location}`;
  }
  return 'registered by the user';
}

function originOf(options: RegisterOptions | undefined): string {
  return options?.origin ?? callerOrigin();
}

function checkName(kind: string, name: unknown): asserts name is string {
  if (typeof name !== 'string' || name.trim() === '' || name !== name.trim()) {
    throw new ConfigError(
      `${kind} name must be a non-empty string without surrounding spaces, got ${JSON.stringify(name)}`,
    );
  }
}

/**
 * Registers a task (the Task contract of src/tasks/task.ts) under its own `name`; a config's
 * `tasks: [{task: name, difficulties: [...]}]` then draws from it. `task.name` must equal `name`
 * (problems carry it, and the verifier is looked up by it).
 */
export function registerTask(name: string, task: Task, options?: RegisterOptions): void {
  checkName('task', name);
  if (task?.name !== name) {
    throw new ConfigError(
      `task '${name}': its name property is ${JSON.stringify(task?.name)}; it must be '${name}'`,
    );
  }
  tasks.register(name, task, originOf(options));
}

/**
 * Registers a reward: a Reward object (takes no options), or a factory `(options) => Reward` that
 * validates the config's `reward.options` and throws ConfigError on bad ones.
 */
export function registerReward(
  name: string,
  reward: Reward | RewardFactory,
  options?: RegisterOptions,
): void {
  checkName('reward', name);
  const factory: RewardFactory =
    typeof reward === 'function'
      ? reward
      : (rewardOptions) => {
          if (rewardOptions !== undefined && Object.keys(rewardOptions as object).length > 0) {
            throw new ConfigError(
              `reward '${name}' takes no options (it was registered as an object; register a factory to take options), got ${JSON.stringify(rewardOptions)}`,
            );
          }
          return reward;
        };
  rewards.register(name, factory, originOf(options));
}

/** Registers a task selector factory `(pool, options, context) => TaskSelector` (src/core/selector.ts). */
export function registerSelector(name: string, factory: SelectorFactory, options?: RegisterOptions): void {
  checkName('selector', name);
  selectors.register(name, factory, originOf(options));
}

/** Registers a guidance scaffold factory `(options, context) => Guidance` (src/guidance/guidance.ts). */
export function registerGuidance(name: string, factory: GuidanceFactory, options?: RegisterOptions): void {
  checkName('guidance', name);
  guidances.register(name, factory, originOf(options));
}

/** Registers an advantage estimator (see defineAdvantageEstimator in `curricula/algorithms`). */
export function registerAdvantage(
  name: string,
  estimator: AdvantageEstimator,
  options?: RegisterOptions,
): void {
  checkName('advantage estimator', name);
  advantageEstimators.register(name, estimator, originOf(options));
}

/** Registers a policy loss (see definePolicyLoss in `curricula/algorithms`). */
export function registerLoss(name: string, loss: PolicyLoss, options?: RegisterOptions): void {
  checkName('loss', name);
  policyLosses.register(name, loss, originOf(options));
}

/** A plug-in made by one of the define* wrappers (or an object with the same fields). */
export type AnyPlugin =
  | Plugin<Task>
  | Plugin<RewardFactory>
  | Plugin<SelectorFactory>
  | Plugin<GuidanceFactory>
  | AdvantageEstimator
  | (PolicyLoss & PluginInfo)
  | (PolicyBackendFactory & PluginInfo);

/**
 * Registers a defined plug-in of any kind under its `id` (plug-in fields kept, for the method index):
 * e.g. `registerPlugin(defineSelector({ id: 'mine', description, optionsSchema, create }))`.
 */
export function registerPlugin(plugin: AnyPlugin, options?: RegisterOptions): void {
  const registries = defaultRegistries();
  const origin = originOf(options);
  checkName(plugin.kind, plugin.id);
  switch (plugin.kind) {
    case 'task': {
      const { create: task } = plugin as Plugin<Task>;
      if (task?.name !== plugin.id) {
        throw new ConfigError(`task '${plugin.id}': its task's name is ${JSON.stringify(task?.name)}`);
      }
      registries.tasks.add(plugin as Plugin<Task>, origin);
      return;
    }
    case 'reward':
      registries.rewards.add(plugin as Plugin<RewardFactory>, origin);
      return;
    case 'selector':
      registries.selectors.add(plugin as Plugin<SelectorFactory>, origin);
      return;
    case 'guidance':
      registries.guidances.add(plugin as Plugin<GuidanceFactory>, origin);
      return;
    case 'advantage':
      registries.advantages.register(plugin.id, plugin as AdvantageEstimator, origin, plugin);
      return;
    case 'loss':
      registries.losses.register(plugin.id, plugin as PolicyLoss, origin, plugin);
      return;
    case 'policy-backend':
      registries.policyBackends.register(plugin.id, plugin as PolicyBackendFactory, origin, plugin);
      return;
    default:
      throw new ConfigError(
        `cannot register a plug-in of kind '${plugin.kind}' (not an extension point yet)`,
      );
  }
}
