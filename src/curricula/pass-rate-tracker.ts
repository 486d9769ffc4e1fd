// Per-problem pass-rate estimates from the groups a run has sampled, for the adaptive rollout budget when
// the selector keeps no estimates of its own. Large pools revisit a problem rarely, so each problem's
// evidence is pooled with its level's (task × difficulty), empirical-Bayes style:
//   level rate   p_L = (S_L + 1) / (S_L + F_L + 2)            (all groups of the level so far)
//   problem rate p_i = (k·p_L + s_i) / (k + s_i + f_i)        (prior of strength k = priorStrength)
// where s, f count successes (reward > 0) and failures. An unseen problem gets its level's rate, an unseen
// level 0.5. With `discount` λ > 0 every count fades by (1 − λ) per step since it was last updated (BOTS's
// discount, applied lazily so a step costs O(batch), not O(pool)).
import { CheckpointError } from '../core/errors.ts';
import type { Problem } from '../core/problem.ts';
import type { GroupOutcome } from '../core/selector.ts';
import type { PassRateEstimator } from './bots.ts';

type Counts = [successes: number, failures: number, step: number];

interface TrackerState {
  kind: 'pass-rate-tracker';
  step: number;
  problems: [id: string, ...counts: Counts][];
  levels: [level: string, ...counts: Counts][];
}

export interface PassRateTrackerOptions {
  /** Fading per step, in [0, 1) (default 0: evidence never fades). */
  discount?: number;
  /** Weight k of the level's rate as a prior for each problem, in pseudo-samples (default 2). */
  priorStrength?: number;
}

export class PassRateTracker implements PassRateEstimator {
  private problems = new Map<string, Counts>();
  private levels = new Map<string, Counts>();
  private step = 0;
  private readonly discount: number;
  private readonly priorStrength: number;

  constructor(options: PassRateTrackerOptions = {}) {
    this.discount = options.discount ?? 0;
    this.priorStrength = options.priorStrength ?? 2;
    if (!(this.discount >= 0 && this.discount < 1)) {
      throw new RangeError(`discount must be in [0, 1), got ${this.discount}`);
    }
    if (!(this.priorStrength > 0))
      throw new RangeError(`priorStrength must be > 0, got ${this.priorStrength}`);
  }

  estimatedPassRate(problem: Problem): number {
    const [levelSuccesses, levelFailures] = this.faded(this.levels.get(levelOf(problem)));
    const levelRate = (levelSuccesses + 1) / (levelSuccesses + levelFailures + 2);
    const [successes, failures] = this.faded(this.problems.get(problem.id));
    const k = this.priorStrength;
    return (k * levelRate + successes) / (k + successes + failures);
  }

  /** Adds one step's groups (several groups of one problem add up), then advances the step. */
  observe(outcomes: readonly Pick<GroupOutcome, 'problem' | 'rewards'>[]): void {
    for (const outcome of outcomes) {
      if (outcome.rewards.length === 0) continue;
      const successes = outcome.rewards.reduce((sum, reward) => sum + (reward > 0 ? 1 : 0), 0);
      const failures = outcome.rewards.length - successes;
      this.add(this.problems, outcome.problem.id, successes, failures);
      this.add(this.levels, levelOf(outcome.problem), successes, failures);
    }
    this.step++;
  }

  state(): TrackerState {
    return {
      kind: 'pass-rate-tracker',
      step: this.step,
      problems: [...this.problems].map(([id, counts]) => [id, ...counts]),
      levels: [...this.levels].map(([level, counts]) => [level, ...counts]),
    };
  }

  load(state: unknown): void {
    const saved = state as TrackerState | null;
    if (
      saved?.kind !== 'pass-rate-tracker' ||
      !Array.isArray(saved.problems) ||
      !Array.isArray(saved.levels)
    ) {
      throw new CheckpointError('rollout budget: the saved pass-rate tracker state is missing or malformed');
    }
    this.step = saved.step;
    this.problems = new Map(saved.problems.map(([id, ...counts]) => [id, counts]));
    this.levels = new Map(saved.levels.map(([level, ...counts]) => [level, counts]));
  }

  private add(map: Map<string, Counts>, key: string, successes: number, failures: number): void {
    const [oldSuccesses, oldFailures] = this.faded(map.get(key));
    map.set(key, [oldSuccesses + successes, oldFailures + failures, this.step]);
  }

  /** Counts faded to the current step. */
  private faded(counts: Counts | undefined): [number, number] {
    if (!counts) return [0, 0];
    const fade = (1 - this.discount) ** (this.step - counts[2]);
    return [counts[0] * fade, counts[1] * fade];
  }
}

function levelOf(problem: Problem): string {
  return `${problem.task}/${problem.difficulty}`;
}
