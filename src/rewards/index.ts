// Fills the reward registry. One register call per reward; config names resolve through `rewards`.
import { createCalibrationReward } from './calibration.ts';
import { createCodeTestsReward } from './code-tests/reward.ts';
import { createCompositeReward } from './compose/composite.ts';
import { createOverlongReward } from './compose/overlong.ts';
import { createFormatReward } from './format.ts';
import { createInformationGainReward } from './information-gain.ts';
import { createMajorityVoteReward } from './majority-vote.ts';
import { createMathAnswerReward } from './math-answer/reward.ts';
import { createNextSegmentReward } from './next-segment.ts';
import { createNextTokenReward } from './next-token.ts';
import { createRefusalAwareReward } from './refusal-aware.ts';
import { rewards } from './registry.ts';
import { createSelfConfidenceReward } from './self-confidence.ts';
import { createSelfConsistencyReward } from './self-consistency.ts';
import { createSynthesizedReferenceReward } from './synthesized-reference.ts';
import { createTaskVerifierReward } from './task-verifier.ts';

rewards.register('math-answer', createMathAnswerReward);
rewards.register('code-tests', createCodeTestsReward);
rewards.register('verifier', createTaskVerifierReward);
rewards.register('format', createFormatReward);
rewards.register('calibration', createCalibrationReward);
rewards.register('majority-vote', createMajorityVoteReward);
rewards.register('composite', createCompositeReward);
// Code-only deps (a token counter) are not the factory's context: the config path passes options only.
rewards.register('overlong', (options) => createOverlongReward(options));
rewards.register('self-confidence', createSelfConfidenceReward);
rewards.register('self-consistency', createSelfConsistencyReward);
rewards.register('synthesized-reference', createSynthesizedReferenceReward);
rewards.register('refusal-aware', createRefusalAwareReward);
rewards.register('next-token', createNextTokenReward);
rewards.register('next-segment', createNextSegmentReward);
rewards.register('information-gain', createInformationGainReward);

export type { RewardFactory } from './registry.ts';
export { rewards };
