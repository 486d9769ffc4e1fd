// The registries of every extension point, as one object. `createDefaultRegistries()` builds fresh
// instances, each filled explicitly with its folder's built-ins (nothing is filled by an import), so a
// watch-mode or hot-reloading script can start over and register a name again in the new instances.
// `defaultRegistries()` is the process-wide set the RL loop and src/api/register.ts use: the folders'
// exported defaults (`tasks`, `rewards`, `selectors`, …), each filled on its first use.
// The small registries that stay where they are (one or two entries, each an implementation detail of
// one module rather than a place users plug into): server protocols and Tinker loss functions
// (src/server/), linear-loss mappings and weight updaters (src/backends/), expert-token terms
// (src/algorithms/losses/expert-tokens.ts), rubric functions (src/guidance/rubrics.ts), ReLIFT
// demonstration sources (src/training/rl/), simulated learners (src/curricula/simulate/) and remote
// bench parts (src/cli/).
import {
  type AdvantageEstimator,
  advantageEstimators,
  createAdvantageRegistry,
} from '../algorithms/advantages/index.ts';
import { createLossRegistry, type PolicyLoss, policyLosses } from '../algorithms/losses/index.ts';
import type { PluginInfo } from '../core/plugin.ts';
import type { Registry } from '../core/registry.ts';
import { createSelectorRegistry, type SelectorFactory, selectors } from '../curricula/index.ts';
import { createGuidanceRegistry, type GuidanceFactory, guidances } from '../guidance/index.ts';
import { createRewardRegistry, type RewardRegistry, rewards } from '../rewards/index.ts';
import { createTaskRegistry, type Task, tasks } from '../tasks/index.ts';
import { createPolicyBackendRegistry, type PolicyBackendFactory, policyBackends } from './policy-backends.ts';

/** One registry per extension point. */
export interface Registries {
  tasks: Registry<Task>;
  rewards: RewardRegistry;
  selectors: Registry<SelectorFactory>;
  guidances: Registry<GuidanceFactory>;
  advantages: Registry<AdvantageEstimator>;
  losses: Registry<PolicyLoss>;
  policyBackends: Registry<PolicyBackendFactory>;
}

/** Fresh registries holding the built-ins (each fills itself on first use). */
export function createDefaultRegistries(): Registries {
  return {
    tasks: createTaskRegistry(),
    rewards: createRewardRegistry(),
    selectors: createSelectorRegistry(),
    guidances: createGuidanceRegistry(),
    advantages: createAdvantageRegistry(),
    losses: createLossRegistry(),
    policyBackends: createPolicyBackendRegistry(),
  };
}

let defaults: Registries | undefined;

/** The process-wide registries (the folders' exported default instances). */
export function defaultRegistries(): Registries {
  defaults ??= {
    tasks,
    rewards,
    selectors,
    guidances,
    advantages: advantageEstimators,
    losses: policyLosses,
    policyBackends,
  };
  return defaults;
}

/** Every registered entry that has plug-in fields, registry by registry, each sorted by id. */
export function registeredPlugins(registries: Registries): PluginInfo[] {
  return Object.values(registries).flatMap((registry: Registry<unknown>) =>
    registry.names().flatMap((name) => registry.info(name) ?? []),
  );
}
