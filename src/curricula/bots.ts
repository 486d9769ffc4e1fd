// bots — Bayesian Online Task Selection: per-problem Beta posteriors over the pass rate, Thompson
// sampling toward a target pass rate.
// Paper: Shen et al., "BOTS: A Unified Framework for Bayesian Online Task Selection in LLM Reinforcement
// Finetuning", arXiv 2510.26374. Authors' code: agentscope-ai/Trinity-RFT
// trinity/buffer/selector/diff_estimator.py (InterpolationBetaPREstimator), selector.py
// (DifficultyBasedSelector: get_scores, get_indices), examples/bots/bots.yaml; the observed pass rate is
// trinity/buffer/operators/mappers/pass_rate_calculator.py (PassRateCalculator.process: the mean reward of
// each task's rollouts, so partial credit counts as such).
// State per problem i: Beta(α_i, β_i), init (1, 1). After a batch S with pass rates p_i = mean reward over
// m rollouts:
//   α_i ← (1−λ)α_i + λ + (1−ρ)·s̄_i + ρ·m·p̃_i ;  β_i ← (1−λ)β_i + λ + (1−ρ)·f̄_i + ρ·m·(1−p̃_i)
// with s̄_i = m·p_i, f̄_i = m·(1−p_i) on S and 0 elsewhere, for every problem of the pool (λ discounts
// toward the Beta(1,1) prior). Implicit evidence p̃_i = clip(f^w_i + κ·(f^s_i − f^w_i), 0, 1) from the
// offline pass rates of a weaker and a stronger reference model (p̃_i := p_i on S), with the capability
// κ ← 0.9κ + 0.1·κ_est, κ_est = (mean_S p − mean_S f^w)/(mean_S f^s − mean_S f^w + 1e-6) (κ = κ_est at
// first). `adaptiveRho`: halve ρ when mean_S |p̃ − p| ≥ 0.25.
// Selection: p̂_i ~ Beta(α_i, β_i) (Thompson) or the posterior mean; score_i = −|p* − p̂_i|; τ = 0 → top-B,
// τ > 0 → B without replacement from softmax(score/τ) (Gumbel-top-k, which has that distribution).
// Defaults (bots.yaml): λ = 0.1, ρ = 0.1, p* = 0.5, τ = 0, Thompson on.
// Deviations: p_i is clipped to [0, 1] (meanReward) so that counts stay non-negative under reward shaping
// outside [0, 1]; the authors use the raw mean. Implicit evidence needs the two feature fields
// (`implicit: {weakKey, strongKey}` naming problem.metadata keys); without it ρ is treated as 0. m is each group's size; for problems outside S it
// is the batch's mean group size. `candidates` (default null = every problem, as the authors) scores only
// that many problems drawn uniformly each step — a cost cap for very large pools (Thompson draws are O(N)).
// [unverified]: none of the values (read in bots.yaml and the selector code).
// inspect() (the dashboard's selector-state panel): the posteriors aggregated per level
// (`<task>-<difficulty>`, so a pool of thousands of problems gives a few dozen numbers): the mean
// posterior mean α/(α+β) (bots/mean/<level>), the mean α and β (bots/alpha/…, bots/beta/…: the pseudo-counts
// of evidence, decaying toward 1 under λ), and the capability κ when implicit evidence is on.
import { z } from 'zod';
import type { Problem } from '../core/problem.ts';
import type { Rng } from '../core/rng.ts';
import type { GroupOutcome, TaskSelector } from '../core/selector.ts';
import { defineSelector } from './define.ts';
import {
  batchMetrics,
  expectState,
  indexById,
  meanReward,
  missingField,
  parseOptions,
  requireNonEmptyPool,
} from './shared.ts';
import { topK } from './top-k.ts';

export const botsOptions = z.strictObject({
  targetPassRate: z.number().min(0).max(1).default(0.5),
  discount: z.number().min(0).max(1).default(0.1),
  implicitWeight: z.number().min(0).max(1).default(0.1),
  temperature: z.number().min(0).default(0),
  thompson: z.boolean().default(true),
  adaptiveRho: z.boolean().default(false),
  implicit: z.strictObject({ weakKey: z.string(), strongKey: z.string() }).nullable().default(null),
  candidates: z.number().int().positive().nullable().default(null),
});

/** A selector that can estimate a problem's pass rate (used by the adaptive rollout budget). */
export interface PassRateEstimator {
  estimatedPassRate(problem: Problem): number;
}

export interface BetaUpdateInput {
  alpha: number;
  beta: number;
  /** Rollouts m behind the evidence. */
  rollouts: number;
  /** Observed pass rate, or null when the problem was not in the batch. */
  observed: number | null;
  /** Implicit prediction p̃ (ignored when implicitWeight = 0). */
  predicted: number;
  discount: number;
  implicitWeight: number;
}

/** One BOTS posterior update for one problem. */
export function botsBetaUpdate(input: BetaUpdateInput): { alpha: number; beta: number } {
  const { alpha, beta, rollouts: m, observed, discount: lambda, implicitWeight: rho } = input;
  const predicted = observed ?? input.predicted;
  const successes = observed === null ? 0 : m * observed;
  const failures = observed === null ? 0 : m * (1 - observed);
  return {
    alpha: (1 - lambda) * alpha + lambda + (1 - rho) * successes + rho * m * predicted,
    beta: (1 - lambda) * beta + lambda + (1 - rho) * failures + rho * m * (1 - predicted),
  };
}

interface BotsState {
  selector: 'bots';
  alpha: number[];
  beta: number[];
  capability: number | null;
  implicitWeight: number;
  lastBatch: string[];
}

export function createBots(pool: Problem[], options: unknown): TaskSelector & PassRateEstimator {
  const config = parseOptions('bots', botsOptions, options);
  requireNonEmptyPool('bots', pool);
  const ids = indexById(pool);
  let weak: Float64Array | null = null;
  let strong: Float64Array | null = null;
  if (config.implicit !== null) {
    const { weakKey, strongKey } = config.implicit;
    weak = new Float64Array(pool.length);
    strong = new Float64Array(pool.length);
    pool.forEach((problem, index) => {
      for (const [key, target] of [
        [weakKey, weak!],
        [strongKey, strong!],
      ] as const) {
        const value = problem.metadata?.[key];
        if (typeof value !== 'number' || !Number.isFinite(value)) {
          throw missingField(
            'bots',
            `metadata.${key}`,
            problem,
            'Implicit evidence needs reference pass rates.',
          );
        }
        target[index] = value;
      }
    });
  }
  let alpha = new Float64Array(pool.length).fill(1);
  let beta = new Float64Array(pool.length).fill(1);
  let capability: number | null = null;
  let implicitWeight = config.implicit === null ? 0 : config.implicitWeight;
  let lastBatch: Problem[] = [];
  const everyIndex = Int32Array.from(pool, (_, index) => index);

  function candidateIndices(rng: Rng): Int32Array {
    if (config.candidates === null || config.candidates >= pool.length) return everyIndex;
    const seen = new Set<number>();
    while (seen.size < config.candidates) seen.add(rng.int(0, pool.length - 1));
    return Int32Array.from(seen);
  }

  return {
    name: 'bots',
    perProblemEvidence: true,
    estimatedPassRate(problem: Problem): number {
      const index = ids.get(problem.id);
      return index === undefined ? 0.5 : alpha[index] / (alpha[index] + beta[index]);
    },
    select(count: number, rng: Rng): Problem[] {
      const candidates = candidateIndices(rng);
      const scores = new Float64Array(candidates.length);
      for (let position = 0; position < candidates.length; position++) {
        const i = candidates[position];
        const estimate = config.thompson ? rng.beta(alpha[i], beta[i]) : alpha[i] / (alpha[i] + beta[i]);
        scores[position] = -Math.abs(config.targetPassRate - estimate);
        if (config.temperature > 0) {
          let u = 0;
          while (u === 0) u = rng.next();
          scores[position] = scores[position] / config.temperature - Math.log(-Math.log(u));
        }
      }
      const chosen = topK(scores, count).map((position) => candidates[position]);
      lastBatch = Array.from({ length: count }, (_, slot) => pool[chosen[slot % chosen.length]]);
      return lastBatch;
    },
    observe(_step: number, outcomes: readonly GroupOutcome[]): void {
      // Merge repeated problems: (partial) successes and rollouts add up.
      const successes = new Map<number, number>();
      const rollouts = new Map<number, number>();
      for (const outcome of outcomes) {
        const index = ids.get(outcome.problem.id);
        if (index === undefined || outcome.rewards.length === 0) continue;
        const m = outcome.rewards.length;
        successes.set(index, (successes.get(index) ?? 0) + meanReward(outcome.rewards) * m);
        rollouts.set(index, (rollouts.get(index) ?? 0) + m);
      }
      if (rollouts.size === 0) return;
      const observed = new Map([...rollouts].map(([index, m]) => [index, successes.get(index)! / m]));
      const meanRollouts = [...rollouts.values()].reduce((sum, m) => sum + m, 0) / rollouts.size;
      if (weak !== null && strong !== null) {
        let meanObserved = 0;
        let meanWeak = 0;
        let meanStrong = 0;
        for (const [index, p] of observed) {
          meanObserved += p / observed.size;
          meanWeak += weak[index] / observed.size;
          meanStrong += strong[index] / observed.size;
        }
        const estimate = (meanObserved - meanWeak) / (meanStrong - meanWeak + 1e-6);
        capability = capability === null ? estimate : 0.9 * capability + 0.1 * estimate;
        if (config.adaptiveRho) {
          let gap = 0;
          for (const [index, p] of observed) gap += Math.abs(predict(index) - p) / observed.size;
          if (gap >= 0.25) implicitWeight /= 2;
        }
      }
      function predict(index: number): number {
        if (weak === null || strong === null || capability === null) return 0.5;
        return Math.min(1, Math.max(0, weak[index] + capability * (strong[index] - weak[index])));
      }
      const lambda = config.discount;
      if (implicitWeight === 0) {
        // Every problem decays toward Beta(1, 1); the batch's problems then add their counts. Same
        // arithmetic, in the same order, as botsBetaUpdate with ρ = 0.
        for (let i = 0; i < pool.length; i++) {
          alpha[i] = (1 - lambda) * alpha[i] + lambda;
          beta[i] = (1 - lambda) * beta[i] + lambda;
        }
        for (const [i, p] of observed) {
          const m = rollouts.get(i)!;
          alpha[i] += m * p;
          beta[i] += m * (1 - p);
        }
        return;
      }
      for (let i = 0; i < pool.length; i++) {
        const seen = observed.get(i);
        const updated = botsBetaUpdate({
          alpha: alpha[i],
          beta: beta[i],
          rollouts: seen === undefined ? meanRollouts : rollouts.get(i)!,
          observed: seen ?? null,
          predicted: predict(i),
          discount: lambda,
          implicitWeight,
        });
        alpha[i] = updated.alpha;
        beta[i] = updated.beta;
      }
    },
    state: (): BotsState => ({
      selector: 'bots',
      alpha: Array.from(alpha),
      beta: Array.from(beta),
      capability,
      implicitWeight,
      lastBatch: lastBatch.map((problem) => problem.id),
    }),
    load(state: unknown): void {
      const saved = expectState<BotsState>('bots', state);
      alpha = Float64Array.from(saved.alpha);
      beta = Float64Array.from(saved.beta);
      capability = saved.capability;
      implicitWeight = saved.implicitWeight;
      lastBatch = saved.lastBatch.map((id) => pool[ids.get(id)!]).filter(Boolean);
    },
    metrics(): Record<string, number> {
      let meanEstimate = 0;
      for (const problem of lastBatch)
        meanEstimate += this.estimatedPassRate(problem) / Math.max(1, lastBatch.length);
      const metrics: Record<string, number> = {
        ...batchMetrics(lastBatch),
        'curriculum/target_pass_rate': config.targetPassRate,
        'curriculum/estimated_pass_rate': meanEstimate,
      };
      if (capability !== null) metrics['curriculum/capability'] = capability;
      return metrics;
    },
    inspect(): Record<string, number> {
      const sums = new Map<string, { alpha: number; beta: number; mean: number; count: number }>();
      pool.forEach((problem, i) => {
        const level = `${problem.task}-${problem.difficulty}`;
        const sum = sums.get(level) ?? { alpha: 0, beta: 0, mean: 0, count: 0 };
        sum.alpha += alpha[i];
        sum.beta += beta[i];
        sum.mean += alpha[i] / (alpha[i] + beta[i]);
        sum.count++;
        sums.set(level, sum);
      });
      const state: Record<string, number> = {};
      for (const [level, sum] of [...sums].sort(([a], [b]) => a.localeCompare(b))) {
        state[`bots/mean/${level}`] = sum.mean / sum.count;
        state[`bots/alpha/${level}`] = sum.alpha / sum.count;
        state[`bots/beta/${level}`] = sum.beta / sum.count;
      }
      if (capability !== null) state['bots/capability'] = capability;
      return state;
    },
  };
}

export const botsSelector = defineSelector({
  id: 'bots',
  description:
    'Bayesian online task selection: per-problem Beta posteriors over the pass rate, Thompson sampling toward a target',
  paper: {
    title: 'BOTS: A Unified Framework for Bayesian Online Task Selection in LLM Reinforcement Finetuning',
    arxiv: '2510.26374',
    code: 'agentscope-ai/Trinity-RFT trinity/buffer/selector/',
  },
  optionsSchema: botsOptions,
  create: createBots,
});
