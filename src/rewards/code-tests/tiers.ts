// TAROT's tiered reward (Park et al., arXiv 2602.15449; code: deep-diver/TAROT custom_rewards/*.py) and its
// tier schedules, as pure functions over per-test outcomes.
//
// Authors' reward: Σ over passed tests whose tier is currently allowed of w_tier, unnormalised (their
// division by the total weight is commented out). Weight sets: uni (.25 each), var (.35,.35,.15,.15),
// var_asce (.15,.15,.35,.35); `*_only` variants give one tier all the weight.
// Schedules (`label_schedule(epoch)`, fractional epoch e over one epoch; the `_3e` variants use 0.6/1.2/1.8
// over three, i.e. the same fractions of training):
//   easy-to-hard: e<0.2 {basic}; e<0.4 +intermediate; e<0.6 +complex; then all.
//   hard-first (var_asce_rev): {complex} → {complex, edge} → {intermediate, complex, edge} → all.
// Deviations:
// - the reward is normalised by the weight of the tests that ran (the authors' commented-out
//   `passed_weight / total_weight`), so it stays in [0, 1] as the Reward contract requires;
// - 'per-tier' weighting (an option, not the authors'): Σ_tier w_tier · pass_rate_tier / Σ_tier w_tier over
//   the tiers present, so that a tier with many tests does not outweigh its w_tier;
// - progress is step / totalSteps instead of TRL's fractional epoch;
// - 'all' (all-or-nothing, as DeepCoder and LiveCodeBench pass@1) is available as an option.
// Capability-conditioned reporting: the per-tier pass rates are returned for every tier that ran; the
// reward logs them as reward/tier/<tier>.
import type { Tier } from './schema.ts';

export type TierWeights = Record<Tier, number>;

export const weightSets = {
  uniform: { basic: 0.25, intermediate: 0.25, complex: 0.25, edge: 0.25 },
  var: { basic: 0.35, intermediate: 0.35, complex: 0.15, edge: 0.15 },
  'var-ascending': { basic: 0.15, intermediate: 0.15, complex: 0.35, edge: 0.35 },
} as const satisfies Record<string, TierWeights>;

export type TierSchedule = 'all' | 'easy-to-hard' | 'hard-first';

const easyToHard: Tier[][] = [
  ['basic'],
  ['basic', 'intermediate'],
  ['basic', 'intermediate', 'complex'],
  ['basic', 'intermediate', 'complex', 'edge'],
];
const hardFirst: Tier[][] = [
  ['complex'],
  ['complex', 'edge'],
  ['intermediate', 'complex', 'edge'],
  ['basic', 'intermediate', 'complex', 'edge'],
];

/** Tiers whose tests count at training progress p = step / totalSteps (all of them when p is unknown). */
export function allowedTiers(schedule: TierSchedule, progress: number | undefined): Set<Tier> {
  if (schedule === 'all' || progress === undefined) return new Set(easyToHard[3]);
  const stage = progress < 0.2 ? 0 : progress < 0.4 ? 1 : progress < 0.6 ? 2 : 3;
  return new Set((schedule === 'easy-to-hard' ? easyToHard : hardFirst)[stage]);
}

export interface TierOutcome {
  tier: Tier;
  passed: number;
  total: number;
}

export interface AggregateOptions {
  aggregate: 'partial' | 'all';
  weighting: 'per-test' | 'per-tier';
  weights: TierWeights;
}

export interface Aggregate {
  reward: number;
  /** Unweighted fraction of the tests that ran and passed. */
  passRate: number;
  /** Pass rate of each tier that ran. */
  tierRates: Partial<Record<Tier, number>>;
}

/**
 * Combines per-tier counts into the reward. `tiered` false means one untiered group: weights do not apply
 * and partial credit is the plain fraction passed.
 */
export function aggregateTiers(
  outcomes: readonly TierOutcome[],
  tiered: boolean,
  options: AggregateOptions,
): Aggregate {
  const ran = outcomes.filter((outcome) => outcome.total > 0);
  const passed = ran.reduce((sum, outcome) => sum + outcome.passed, 0);
  const total = ran.reduce((sum, outcome) => sum + outcome.total, 0);
  const passRate = total > 0 ? passed / total : 0;
  const tierRates: Partial<Record<Tier, number>> = {};
  if (tiered) for (const outcome of ran) tierRates[outcome.tier] = outcome.passed / outcome.total;
  if (total === 0) return { reward: 0, passRate, tierRates };
  if (options.aggregate === 'all') return { reward: passed === total ? 1 : 0, passRate, tierRates };
  if (!tiered) return { reward: passRate, passRate, tierRates };
  const weight = (tier: Tier) => options.weights[tier];
  let numerator = 0;
  let denominator = 0;
  for (const outcome of ran) {
    if (options.weighting === 'per-test') {
      numerator += weight(outcome.tier) * outcome.passed;
      denominator += weight(outcome.tier) * outcome.total;
    } else {
      numerator += weight(outcome.tier) * (outcome.passed / outcome.total);
      denominator += weight(outcome.tier);
    }
  }
  return { reward: denominator > 0 ? numerator / denominator : 0, passRate, tierRates };
}
