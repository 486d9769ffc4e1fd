// The advantage-estimator registry: config names resolve here; an unknown name lists the known ones.
// Each entry is a plug-in of kind 'advantage' (defineAdvantage, ./estimator.ts). `createAdvantageRegistry()`
// builds a fresh, filled instance; `advantageEstimators` is the default one, filled on first use.
import { Registry } from '../../core/registry.ts';
import { drGrpo } from './dr-grpo.ts';
import type { AdvantageEstimator } from './estimator.ts';
import { gaeEstimator } from './gae.ts';
import { grpo } from './grpo.ts';
import { grpoPassk } from './grpo-passk.ts';
import { opo } from './opo.ts';
import { raft } from './raft.ts';
import { reinforcePlusPlus } from './reinforce-pp.ts';
import { reinforceRej } from './reinforce-rej.ts';
import { remax } from './remax.ts';
import { rloo } from './rloo.ts';

export {
  type AdvantageDefinition,
  type AdvantageEstimate,
  type AdvantageEstimator,
  defineAdvantage,
  type RewardGroup,
} from './estimator.ts';

/** The built-in estimators. */
export const builtinAdvantages: readonly AdvantageEstimator[] = [
  grpo,
  drGrpo,
  rloo,
  opo,
  grpoPassk,
  reinforcePlusPlus,
  raft,
  reinforceRej,
  gaeEstimator,
  remax,
];

/** A fresh advantage-estimator registry holding the built-ins. */
export function createAdvantageRegistry(): Registry<AdvantageEstimator> {
  return new Registry<AdvantageEstimator>('advantage estimator', (registry) => {
    for (const estimator of builtinAdvantages)
      registry.register(estimator.id, estimator, 'built-in', estimator);
  });
}

/** The default registry (the loop's and src/api/register.ts's), filled on first use. */
export const advantageEstimators = createAdvantageRegistry();
