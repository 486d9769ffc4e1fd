// The advantage-estimator registry: config names resolve here; an unknown name lists the known ones.
import { Registry } from '../../core/registry.ts';
import { drGrpo } from './dr-grpo.ts';
import type { AdvantageEstimator } from './estimator.ts';
import { grpo } from './grpo.ts';
import { raft } from './raft.ts';
import { reinforcePlusPlus } from './reinforce-pp.ts';
import { reinforceRej } from './reinforce-rej.ts';
import { rloo } from './rloo.ts';

export type { AdvantageEstimate, AdvantageEstimator, RewardGroup } from './estimator.ts';

export function createAdvantageRegistry(): Registry<AdvantageEstimator> {
  return new Registry<AdvantageEstimator>('advantage estimator')
    .register(grpo.name, grpo)
    .register(drGrpo.name, drGrpo)
    .register(rloo.name, rloo)
    .register(reinforcePlusPlus.name, reinforcePlusPlus)
    .register(raft.name, raft)
    .register(reinforceRej.name, reinforceRej);
}

export const advantageEstimators = createAdvantageRegistry();
