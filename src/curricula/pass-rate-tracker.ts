// Per-problem pass-rate estimates from the groups a run has sampled, for the adaptive rollout budget when
// the selector keeps no estimates of its own. Each problem holds Beta(α, β) counts over a Beta(1, 1) prior;
// a group with k successes out of m adds k to α and m − k to β. With `discount` λ > 0 the evidence fades
// toward the prior by (1 − λ) per step since it was last updated (BOTS's discount, applied lazily so a step
// costs O(batch), not O(pool)): α_eff = 1 + (α − 1)(1 − λ)^(t − t_last). Unseen problems estimate 0.5.
import { CheckpointError } from '../core/errors.ts';
import type { Problem } from '../core/problem.ts';
import type { GroupOutcome } from '../core/selector.ts';
import type { PassRateEstimator } from './bots.ts';

interface Counts {
  alpha: number;
  beta: number;
  step: number;
}

interface TrackerState {
  kind: 'pass-rate-tracker';
  step: number;
  counts: [id: string, alpha: number, beta: number, step: number][];
}

export class PassRateTracker implements PassRateEstimator {
  private counts = new Map<string, Counts>();
  private step = 0;

  constructor(private readonly discount = 0) {
    if (!(discount >= 0 && discount < 1)) throw new RangeError(`discount must be in [0, 1), got ${discount}`);
  }

  estimatedPassRate(problem: Problem): number {
    const { alpha, beta } = this.posterior(problem.id);
    return alpha / (alpha + beta);
  }

  /** Beta(α, β) of a problem with the discount applied up to the current step. */
  posterior(id: string): { alpha: number; beta: number } {
    const counts = this.counts.get(id);
    if (!counts) return { alpha: 1, beta: 1 };
    const fade = (1 - this.discount) ** (this.step - counts.step);
    return { alpha: 1 + (counts.alpha - 1) * fade, beta: 1 + (counts.beta - 1) * fade };
  }

  /** Adds one step's groups (several groups of one problem add up), then advances the step. */
  observe(outcomes: readonly Pick<GroupOutcome, 'problem' | 'rewards'>[]): void {
    for (const outcome of outcomes) {
      if (outcome.rewards.length === 0) continue;
      const successes = outcome.rewards.reduce((sum, reward) => sum + (reward > 0 ? 1 : 0), 0);
      const { alpha, beta } = this.posterior(outcome.problem.id);
      this.counts.set(outcome.problem.id, {
        alpha: alpha + successes,
        beta: beta + outcome.rewards.length - successes,
        step: this.step,
      });
    }
    this.step++;
  }

  state(): TrackerState {
    return {
      kind: 'pass-rate-tracker',
      step: this.step,
      counts: [...this.counts].map(([id, counts]) => [id, counts.alpha, counts.beta, counts.step]),
    };
  }

  load(state: unknown): void {
    const saved = state as TrackerState | null;
    if (saved?.kind !== 'pass-rate-tracker' || !Array.isArray(saved.counts)) {
      throw new CheckpointError('rollout budget: the saved pass-rate tracker state is missing or malformed');
    }
    this.step = saved.step;
    this.counts = new Map(saved.counts.map(([id, alpha, beta, step]) => [id, { alpha, beta, step }]));
  }
}
