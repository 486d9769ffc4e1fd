// The built-in rewards, one plug-in each (./registry.ts: defineReward), and the reward registry built from
// them. `createRewardRegistry()` builds a fresh, filled instance; `rewards` is the default one, filled on
// first use (importing this file registers nothing). Config names resolve through a registry.
import { calibrationReward } from './calibration.ts';
import { codeTestsReward } from './code-tests/reward.ts';
import { compositeReward } from './compose/composite.ts';
import { overlongReward } from './compose/overlong.ts';
import { formatReward } from './format.ts';
import { informationGainReward } from './information-gain.ts';
import { checklistReward } from './judges/checklist.ts';
import { evolvingRubricReward } from './judges/evolving/reward.ts';
import { pairwiseReward } from './judges/pairwise.ts';
import { rankingReward } from './judges/ranking.ts';
import { rubricReward } from './judges/rubric.ts';
import { scoreReward } from './judges/score.ts';
import { majorityVoteReward } from './majority-vote.ts';
import { mathAnswerReward } from './math-answer/reward.ts';
import { nextSegmentReward } from './next-segment.ts';
import { nextTokenReward } from './next-token.ts';
import { refusalAwareReward } from './refusal-aware.ts';
import { type RewardPlugin, RewardRegistry } from './registry.ts';
import { rewardModelReward } from './reward-model/reward.ts';
import { selfConfidenceReward } from './self-confidence.ts';
import { selfConsistencyReward } from './self-consistency.ts';
import { synthesizedReferenceReward } from './synthesized-reference.ts';
import { taskVerifierReward } from './task-verifier.ts';

/** The built-in rewards. */
export const builtinRewards: readonly RewardPlugin[] = [
  mathAnswerReward,
  codeTestsReward,
  taskVerifierReward,
  formatReward,
  calibrationReward,
  majorityVoteReward,
  compositeReward,
  overlongReward,
  selfConfidenceReward,
  selfConsistencyReward,
  synthesizedReferenceReward,
  refusalAwareReward,
  nextTokenReward,
  nextSegmentReward,
  informationGainReward,
  scoreReward,
  rubricReward,
  checklistReward,
  evolvingRubricReward,
  rankingReward,
  pairwiseReward,
  rewardModelReward,
];

/** A fresh reward registry holding the built-ins. */
export function createRewardRegistry(): RewardRegistry {
  return new RewardRegistry('reward', (registry) => {
    for (const plugin of builtinRewards) registry.add(plugin);
  });
}

/** The default reward registry (the loop's and src/api/register.ts's), filled on first use. */
export const rewards: RewardRegistry = createRewardRegistry();

export {
  defineReward,
  type RewardFactory,
  type RewardFactoryContext,
  type RewardLookup,
  type RewardPlugin,
  RewardRegistry,
} from './registry.ts';
