// `curricula/testing`: the conformance helpers. Each runs a plug-in through the checks the built-in
// entries of its kind pass (their own test suites call the same functions) and throws a ConformanceError
// naming the first broken property ("reward 'mine': each reward is a finite number (result 3: NaN)");
// on success it returns a report of what it checked. checkReward and checkEnvironment are async; the
// others are synchronous.
export { type AdvantageCheckOptions, checkAdvantage } from '../algorithms/advantages/conformance.ts';
export { checkLoss, type LossCheckOptions } from '../algorithms/losses/conformance.ts';
export type { ConformanceReport } from '../core/conformance.ts';
export { ConformanceError } from '../core/errors.ts';
export { checkSelector, type SelectorCheckOptions } from '../curricula/conformance.ts';
export { checkEnvironment, type EnvironmentCheckOptions } from '../environments/conformance.ts';
export { checkGuidance, type GuidanceCheckOptions } from '../guidance/conformance.ts';
export { checkReward, defaultRewardInputs, type RewardCheckOptions } from '../rewards/conformance.ts';
export { checkTask, type TaskCheckOptions } from '../tasks/conformance.ts';
