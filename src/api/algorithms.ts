// `curricula/algorithms`: the advantage-estimator and policy-loss contracts, the helpers that build one
// (defineAdvantageEstimator, definePolicyLoss: options schema, validation and the shared aggregation come
// with them), the built-in names, and registerAdvantage / registerLoss. Losses and advantages are pure
// functions over arrays; a custom loss is handed to any backend as per-token weights ∂L/∂logp.
import { type AdvantageEstimate, advantageEstimators } from '../algorithms/advantages/index.ts';
import { policyLosses } from '../algorithms/losses/index.ts';
import type { LossSequence, PolicyLossResult } from '../algorithms/losses/policy-loss.ts';

export type {
  AdvantageEstimate,
  AdvantageEstimator,
  RewardGroup,
} from '../algorithms/advantages/estimator.ts';
export { defineAdvantage, defineAdvantageEstimator, includeAll } from '../algorithms/advantages/estimator.ts';
export { type AggregationMode, aggregationModes } from '../algorithms/losses/aggregation.ts';
export type {
  AggregationOptions,
  LossSequence,
  PolicyLoss,
  PolicyLossResult,
  TokenInput,
  TokenLoss,
  TokenTerm,
} from '../algorithms/losses/policy-loss.ts';
export { aggregationOptionsShape, defineLoss, definePolicyLoss } from '../algorithms/losses/policy-loss.ts';
export { type RegisterOptions, registerAdvantage, registerLoss, registerPlugin } from './register.ts';

/** Names of the advantage estimators registered now, sorted. */
export function advantageNames(): string[] {
  return advantageEstimators.names();
}

/** Names of the policy losses registered now, sorted. */
export function lossNames(): string[] {
  return policyLosses.names();
}

/**
 * Advantages of groups of rewards with a registered estimator (`grpo`, `rloo`, …): [group][sample].
 * `options` are the estimator's (undefined = its defaults).
 */
export function estimateAdvantages(
  name: string,
  groups: readonly { rewards: readonly number[]; lengths?: readonly number[] }[],
  options?: unknown,
): AdvantageEstimate {
  return advantageEstimators.get(name).estimate(groups, options);
}

/** A registered loss's value, per-token weights and metrics on `sequences` (undefined options = defaults). */
export function computeLoss(
  name: string,
  sequences: readonly LossSequence[],
  options?: unknown,
): PolicyLossResult {
  return policyLosses.get(name).compute(sequences, options);
}
