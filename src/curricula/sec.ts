// sec — Self-Evolving Curriculum: a non-stationary bandit over problem categories.
// Paper: Chen et al., "Self-Evolving Curriculum for LLM Reasoning", arXiv 2505.14970. Authors' code: the
// SEC verl fork, verl/utils/auto_curriculum/priority.py (BanditPriority.get_probs, sample_arms, update,
// update_q_values) and dataloader.py, read through the public copy zhengyaogu/verl_latest.
// Arms c: the problem's difficulty level (default, as the authors' feature ['difficulty']), task, category,
// category×difficulty ('both') or task×difficulty ('task-difficulty'). State Q ∈ R^K, init 0.
// Signal (objective 'adv'): r_t(c) = mean over trajectories i of arm c of |A_i|.
// Update (TD(0)/EMA): Q ← (1−α)·Q + α·r̃, with r̃(c) = r_t(c) if c occurred in the batch, else 0 — the
// authors' code updates every arm, so absent arms decay toward 0 (`decayAbsentArms: true`, the default);
// `false` updates only the arms in the batch. Whether the paper intends the decay is [unverified].
// Selection ('boltzmann'): for each slot draw c ~ softmax(Q/τ), then take the next problem of c's shuffled
// list (no replacement; refilled when exhausted). 'normalized_q': c ∝ max(Q, 0.01) (the authors assert
// Q ≥ 0, which holds for |A|). 'greedy' (sample_arms): with probability ε a uniformly drawn arm other than
// argmax Q (ties → the first), else argmax Q; so the best arm has 1 − ε and each other arm ε/(K − 1).
// Defaults: α = 0.5 and τ = 1.0 (README Countdown run; the class defaults are α = 0.1, τ = 1.0), ε = 0.1.
// Deviations: the 'progress' objective is not implemented. For 'greedy' the authors log the Boltzmann
// probabilities (get_probs('greedy') is softmax); curriculum/<arm>/prob here is the ε-greedy distribution
// actually sampled, in one categorical draw per slot (the same distribution as the authors' two-stage
// draw). With one arm, 'greedy' always takes it (the authors' redraw loop would not end).
// inspect() (the dashboard's selector-state panel): Q per arm and the last batch's signal r_t(c) per arm.
import { z } from 'zod';
import type { Problem } from '../core/problem.ts';
import type { Rng } from '../core/rng.ts';
import type { GroupOutcome, TaskSelector } from '../core/selector.ts';
import { defineSelector } from './define.ts';
import {
  ArmLists,
  type ArmListsState,
  armDifficultyHint,
  armKey,
  armKinds,
  armMetrics,
  expectState,
  groupIntoArms,
  parseOptions,
  requireArmCount,
  requireDifficulty,
  requireNonEmptyPool,
  softmax,
  usesDifficulty,
} from './shared.ts';

export const secOptions = z.strictObject({
  arms: z.enum(armKinds).default('difficulty'),
  learningRate: z.number().min(0).max(1).default(0.5),
  temperature: z.number().positive().default(1),
  method: z.enum(['boltzmann', 'normalized_q', 'greedy']).default('boltzmann'),
  epsilon: z.number().min(0).max(1).default(0.1),
  decayAbsentArms: z.boolean().default(true),
});

/**
 * One SEC update. `rewards[c]` is r_t(c), or null when arm c did not occur in the batch.
 * Returns the new Q (a fresh array).
 */
export function secUpdate(
  q: readonly number[],
  rewards: readonly (number | null)[],
  learningRate: number,
  decayAbsentArms: boolean,
): number[] {
  return q.map((value, arm) => {
    const reward = rewards[arm];
    if (reward === null) return decayAbsentArms ? (1 - learningRate) * value : value;
    return (1 - learningRate) * value + learningRate * reward;
  });
}

/** The arm distribution each slot draws from, for a method of the authors' BanditPriority. */
export function secProbabilities(
  q: readonly number[],
  method: 'boltzmann' | 'normalized_q' | 'greedy',
  temperature: number,
  epsilon: number,
): number[] {
  switch (method) {
    case 'boltzmann':
      return softmax(q, temperature);
    case 'normalized_q': {
      const clipped = q.map((value) => Math.max(value, 0.01));
      const total = clipped.reduce((sum, value) => sum + value, 0);
      return clipped.map((value) => value / total);
    }
    case 'greedy': {
      let best = 0;
      for (let arm = 1; arm < q.length; arm++) if (q[arm] > q[best]) best = arm;
      if (q.length === 1) return [1];
      return q.map((_, arm) => (arm === best ? 1 - epsilon : epsilon / (q.length - 1)));
    }
  }
}

interface SecState {
  selector: 'sec';
  q: number[];
  lists: ArmListsState;
}

export function createSec(pool: Problem[], options: unknown): TaskSelector {
  const config = parseOptions('sec', secOptions, options);
  requireNonEmptyPool('sec', pool);
  if (usesDifficulty(config.arms)) requireDifficulty('sec', pool, armDifficultyHint);
  const arms = groupIntoArms(pool, (problem) => armKey(problem, config.arms));
  const lists = new ArmLists(arms.members);
  let q = arms.names.map(() => 0);
  // r_t(c) of the last observed batch (null: the arm was absent), for inspect(); not part of the state.
  let lastSignal: (number | null)[] = arms.names.map(() => null);

  function probabilities(): number[] {
    return secProbabilities(q, config.method, config.temperature, config.epsilon);
  }

  return {
    name: 'sec',
    select(count: number, rng: Rng): Problem[] {
      const weights = probabilities();
      const batch: Problem[] = [];
      for (let slot = 0; slot < count; slot++) batch.push(pool[lists.next(rng.categorical(weights), rng)]);
      return batch;
    },
    observe(_step: number, outcomes: readonly GroupOutcome[]): void {
      const sums = q.map(() => 0);
      const counts = q.map(() => 0);
      for (const outcome of outcomes) {
        const arm = arms.indexOfName.get(armKey(outcome.problem, config.arms));
        if (arm === undefined) continue;
        for (const advantage of outcome.advantages) {
          sums[arm] += Math.abs(advantage);
          counts[arm]++;
        }
      }
      const rewards = sums.map((sum, arm) => (counts[arm] > 0 ? sum / counts[arm] : null));
      q = secUpdate(q, rewards, config.learningRate, config.decayAbsentArms);
      lastSignal = rewards;
    },
    state: (): SecState => ({ selector: 'sec', q: [...q], lists: lists.state() }),
    load(state: unknown): void {
      const saved = expectState<SecState>('sec', state);
      requireArmCount('sec', saved.q, arms.names);
      q = [...saved.q];
      lists.load(saved.lists);
    },
    metrics(): Record<string, number> {
      const metrics = armMetrics(arms.names, probabilities());
      arms.names.forEach((name, arm) => {
        metrics[`curriculum/${name}/q`] = q[arm];
      });
      return metrics;
    },
    /** sec/q/<arm>: Q; sec/signal/<arm>: the last batch's mean |A| of the arm (absent arms omitted). */
    inspect(): Record<string, number> {
      const state: Record<string, number> = {};
      arms.names.forEach((name, arm) => {
        state[`sec/q/${name}`] = q[arm];
        const signal = lastSignal[arm];
        if (signal !== null) state[`sec/signal/${name}`] = signal;
      });
      return state;
    },
  };
}

export const secSelector = defineSelector({
  id: 'sec',
  description:
    'Self-Evolving Curriculum: a non-stationary bandit over problem categories, rewarded by mean |advantage|',
  paper: {
    title: 'Self-Evolving Curriculum for LLM Reasoning',
    arxiv: '2505.14970',
    code: 'zhengyaogu/verl_latest verl/utils/auto_curriculum/priority.py',
  },
  optionsSchema: secOptions,
  create: createSec,
});
