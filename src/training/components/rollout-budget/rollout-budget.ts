// The adaptive rollout budget inside the RL step: how many samples each selected problem gets.
// The batch keeps its total (problems × rollout.groupSize); allocateRollouts (src/curricula/rollout-budget.ts)
// splits it in proportion to each problem's outcome uncertainty p(1 − p), within [min, max]. Pass rates come
// from the selector when it keeps them (bots: Beta posteriors), otherwise from the run's own history of
// each problem (PassRateTracker), which is saved with checkpoints.
import { ConfigError } from '../../../core/errors.ts';
import type { Problem } from '../../../core/problem.ts';
import type { GroupOutcome, TaskSelector } from '../../../core/selector.ts';
import { mean } from '../../../core/stats.ts';
import type { PassRateEstimator } from '../../../curricula/bots.ts';
import { PassRateTracker } from '../../../curricula/pass-rate-tracker.ts';
import { allocateRollouts } from '../../../curricula/rollout-budget.ts';
import type { RlConfig } from '../../rl/config.ts';

export interface RolloutBudget {
  /** 'selector' or 'history'. */
  readonly source: string;
  /** Samples for each problem; they add up to problems.length × groupSize. */
  plan(problems: readonly Problem[]): number[];
  observe(outcomes: readonly GroupOutcome[]): void;
  /** Checkpoint state (null when the selector owns the estimates). */
  state(): unknown;
  load(state: unknown): void;
  /** rollout/… metrics of the last plan. */
  metrics(): Record<string, number>;
}

/** The largest group the budget may give one problem. */
export function budgetMax(config: RlConfig): number {
  return config.rollout.budget.max ?? 4 * config.rollout.groupSize;
}

/** Config checks that need no model: the bounds must contain the nominal group size. */
export function validateRolloutBudget(config: RlConfig): void {
  const { budget, groupSize } = config.rollout;
  if (!budget.enabled) return;
  const max = budgetMax(config);
  if (!(budget.min <= groupSize && groupSize <= max)) {
    throw new ConfigError(
      `rollout.budget: need min ≤ groupSize ≤ max so the batch total (problems × groupSize) fits, got min ${budget.min}, groupSize ${groupSize}, max ${max}`,
    );
  }
}

export function createRolloutBudget(config: RlConfig, selector: TaskSelector): RolloutBudget | null {
  const { budget, groupSize } = config.rollout;
  if (!budget.enabled) return null;
  validateRolloutBudget(config);
  const own = hasPassRates(selector) ? selector : null;
  if (budget.passRates === 'selector' && own === null) {
    throw new ConfigError(
      `rollout.budget.passRates 'selector': selector '${selector.name}' keeps no pass-rate estimates (bots does); use 'history' or 'auto'`,
    );
  }
  const tracker =
    budget.passRates === 'history' || own === null
      ? new PassRateTracker({ discount: budget.discount })
      : null;
  const estimator: PassRateEstimator = tracker ?? own!;
  const max = budgetMax(config);
  let lastRates: number[] = [];
  let lastSizes: number[] = [];
  return {
    source: tracker ? 'history' : 'selector',
    plan(problems) {
      lastRates = problems.map((problem) => estimator.estimatedPassRate(problem));
      lastSizes = allocateRollouts({
        passRates: lastRates,
        total: problems.length * groupSize,
        min: budget.min,
        max,
      });
      return lastSizes;
    },
    observe(outcomes) {
      tracker?.observe(outcomes);
    },
    state: () => tracker?.state() ?? null,
    load(state) {
      if (tracker && state !== null && state !== undefined) tracker.load(state);
    },
    metrics(): Record<string, number> {
      if (lastSizes.length === 0) return {};
      const average = mean(lastSizes);
      return {
        'rollout/group_size_min': Math.min(...lastSizes),
        'rollout/group_size_max': Math.max(...lastSizes),
        'rollout/group_size_std': Math.sqrt(mean(lastSizes.map((size) => (size - average) ** 2))),
        'rollout/estimated_pass_rate_mean': mean(lastRates),
      };
    },
  };
}

function hasPassRates(selector: TaskSelector): selector is TaskSelector & PassRateEstimator {
  return typeof (selector as Partial<PassRateEstimator>).estimatedPassRate === 'function';
}
