// The selector registry: every task selector, by the name configs use. Each entry is a factory
// (pool, options) → TaskSelector that validates its options with its own zod schema.
import type { Problem } from '../core/problem.ts';
import { Registry } from '../core/registry.ts';
import type { TaskSelector } from '../core/selector.ts';
import { createAdarft } from './adarft.ts';
import { createAlpGmm } from './alp-gmm.ts';
import { createBalanced } from './balanced.ts';
import { createBots } from './bots.ts';
import { createDump } from './dump.ts';
import { createE2h } from './e2h.ts';
import { createHardFirst } from './hard-first.ts';
import { createLearningProgress } from './learning-progress.ts';
import { createReverse } from './reverse.ts';
import { createSec } from './sec.ts';
import type { SelectorContext } from './shared.ts';
import { createTargetRelevance } from './target-relevance.ts';
import { createUniform } from './uniform.ts';
import { createVcrl } from './vcrl.ts';

/** Builds a selector from its pool and a config's `selector.options` (validated; ConfigError on bad ones). */
export type SelectorFactory = (pool: Problem[], options: unknown, context?: SelectorContext) => TaskSelector;

export const selectors = new Registry<SelectorFactory>('selector')
  .register('uniform', createUniform)
  .register('e2h', createE2h)
  .register('hard-first', createHardFirst)
  .register('adarft', createAdarft)
  .register('sec', createSec)
  .register('dump', createDump)
  .register('bots', createBots)
  .register('vcrl', createVcrl)
  .register('balanced', createBalanced)
  .register('learning-progress', createLearningProgress)
  .register('alp-gmm', createAlpGmm)
  .register('target-relevance', createTargetRelevance)
  .register('reverse', createReverse);

export type { PassRateEstimator } from './bots.ts';
export { allocateRollouts } from './rollout-budget.ts';
export type { SelectorContext } from './shared.ts';
