// Fills the reward registry. One register call per reward; config names resolve through `rewards`.
import { createCodeTestsReward } from './code-tests/reward.ts';
import { createMathAnswerReward } from './math-answer/reward.ts';
import { rewards } from './registry.ts';
import { createTaskVerifierReward } from './task-verifier.ts';

rewards.register('math-answer', createMathAnswerReward);
rewards.register('code-tests', createCodeTestsReward);
rewards.register('verifier', createTaskVerifierReward);

export type { RewardFactory } from './registry.ts';
export { rewards };
