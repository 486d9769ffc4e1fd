// Adaptive rollout budget: split a fixed number of samples across the selected problems in proportion
// to the outcome uncertainty p(1−p) of each (largest at p = 0.5, zero for problems surely solved or
// surely failed), within [min, max] per problem. Motivation: the variance of a GRPO group's reward is
// p(1−p), the quantity balanced filtering and VCRL select on (Bae et al., arXiv 2504.03380; Jiang et al.,
// arXiv 2509.19803); pass rates can come from BOTS's Beta posteriors (PassRateEstimator in bots.ts).
// Allocation: every problem gets `min`; the rest is water-filled in proportion to p(1−p), capping at `max`
// and handing the excess to uncapped problems; if all weights are 0 the rest is shared equally. Rounding is
// largest-remainder (Hamilton): floor, then +1 to the largest remainders, ties to the lower index — the
// result is deterministic and sums exactly to `total`.
// Used by `curricula train` when rollout.budget.enabled (src/training/components/rollout-budget/rollout-budget.ts), with pass
// rates from the selector (bots) or from the run's history (pass-rate-tracker.ts).
import { ConfigError } from '../core/errors.ts';

export interface RolloutBudgetOptions {
  /** Estimated pass rate of each selected problem, in [0, 1]. */
  passRates: readonly number[];
  /** Samples to distribute. */
  total: number;
  /** Samples per problem at least (default 2: GRPO needs two samples for a non-trivial advantage). */
  min?: number;
  /** Samples per problem at most (default: total). */
  max?: number;
}

export function allocateRollouts({ passRates, total, min = 2, max = total }: RolloutBudgetOptions): number[] {
  const n = passRates.length;
  if (n === 0) return [];
  if (!Number.isInteger(total) || !Number.isInteger(min) || !Number.isInteger(max) || min < 0 || max < min) {
    throw new ConfigError(
      `rollout budget: need integers 0 <= min <= max, got min ${min}, max ${max}, total ${total}`,
    );
  }
  if (total < n * min || total > n * max) {
    throw new ConfigError(
      `rollout budget: ${total} samples cannot give ${n} problems between ${min} and ${max} each`,
    );
  }
  const weights = passRates.map((p) => {
    const clipped = Math.min(1, Math.max(0, p));
    return clipped * (1 - clipped);
  });
  const shares = new Array<number>(n).fill(min);
  let remaining = total - n * min;
  const open = new Set(passRates.map((_, index) => index));
  // Water-filling: distribute in proportion to weight; problems that would pass `max` are capped.
  while (remaining > 1e-9 && open.size > 0) {
    let weightSum = 0;
    for (const index of open) weightSum += weights[index];
    const portions = [...open].map((index) => ({
      index,
      portion: weightSum > 0 ? (remaining * weights[index]) / weightSum : remaining / open.size,
    }));
    const overflowing = portions.filter(({ index, portion }) => shares[index] + portion >= max);
    if (overflowing.length === 0) {
      for (const { index, portion } of portions) shares[index] += portion;
      break;
    }
    for (const { index } of overflowing) {
      remaining -= max - shares[index];
      shares[index] = max;
      open.delete(index);
    }
  }
  const floors = shares.map((share) => Math.floor(share + 1e-9));
  let leftover = total - floors.reduce((sum, value) => sum + value, 0);
  const order = shares
    .map((share, index) => ({ index, remainder: share - floors[index] }))
    .filter(({ index }) => floors[index] < max)
    .sort((a, b) => b.remainder - a.remainder || a.index - b.index);
  for (const { index } of order) {
    if (leftover <= 0) break;
    floors[index]++;
    leftover--;
  }
  return floors;
}
