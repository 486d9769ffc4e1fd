// The selector registry: every task selector, by the name configs use. Each entry is a plug-in
// (./define.ts) whose `create(pool, options, context)` validates its options with its own zod schema.
// `createSelectorRegistry()` builds a fresh, filled instance; `selectors` is the default one, filled on
// first use (importing this file registers nothing).
import { Registry } from '../core/registry.ts';
import { adarftSelector } from './adarft.ts';
import { alpGmmSelector } from './alp-gmm.ts';
import { balancedSelector } from './balanced.ts';
import { botsSelector } from './bots.ts';
import type { SelectorFactory, SelectorPlugin } from './define.ts';
import { dumpSelector } from './dump.ts';
import { e2hSelector } from './e2h.ts';
import { hardFirstSelector } from './hard-first.ts';
import { learningProgressSelector } from './learning-progress.ts';
import { reverseSelector } from './reverse.ts';
import { secSelector } from './sec.ts';
import { targetRelevanceSelector } from './target-relevance.ts';
import { uniformSelector } from './uniform.ts';
import { vcrlSelector } from './vcrl.ts';

/** The built-in selectors, in the order `curricula` has always listed them. */
export const builtinSelectors: readonly SelectorPlugin[] = [
  uniformSelector,
  e2hSelector,
  hardFirstSelector,
  adarftSelector,
  secSelector,
  dumpSelector,
  botsSelector,
  vcrlSelector,
  balancedSelector,
  learningProgressSelector,
  alpGmmSelector,
  targetRelevanceSelector,
  reverseSelector,
];

function fillSelectors(registry: Registry<SelectorFactory>): void {
  for (const plugin of builtinSelectors) registry.add(plugin);
}

/** A fresh selector registry holding the built-ins. */
export function createSelectorRegistry(): Registry<SelectorFactory> {
  return new Registry<SelectorFactory>('selector', fillSelectors);
}

/** The default selector registry (the loop's and src/api/register.ts's), filled on first use. */
export const selectors: Registry<SelectorFactory> = createSelectorRegistry();

export type { PassRateEstimator } from './bots.ts';
export { defineSelector, type SelectorFactory, type SelectorPlugin } from './define.ts';
export { allocateRollouts } from './rollout-budget.ts';
export type { SelectorContext } from './shared.ts';
