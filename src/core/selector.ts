// The task-selector contract (what to practise). A selector owns a pool of problems, picks the next
// batch, and learns from the graded groups. Implementations live in src/curricula/, one file each.
import type { Problem } from './problem.ts';
import type { Rng } from './rng.ts';

/** What the trainer reports back about one problem after a step. */
export interface GroupOutcome {
  problem: Problem;
  /** Scalar reward of each sampled completion, in sample order. */
  rewards: number[];
  /** Per-sample advantage (token-mean of the per-token advantage; for outcome rewards the sequence value). */
  advantages: number[];
}

/** The task-selector contract: pick the next batch from a pool, learn from graded groups, save and restore state. */
export interface TaskSelector {
  readonly name: string;
  /** Chooses `count` problems for the next step (repeats allowed where the method allows them). */
  select(count: number, rng: Rng): Problem[];
  /** Updates the selector with the graded groups of `step`. */
  observe(step: number, outcomes: readonly GroupOutcome[]): void;
  /** JSON-serialisable state, saved with checkpoints. */
  state(): unknown;
  /** Restores a state returned by `state()`. */
  load(state: unknown): void;
  /** Metrics under curriculum/… (e.g. curriculum/<arm>/prob, curriculum/target_difficulty). */
  metrics(): Record<string, number>;
  /**
   * True when the selector acts on each problem's own past outcomes (balanced, bots, reverse): it can only
   * act on problems the run comes back to, so a pool larger than the run's draws leaves it inert.
   */
  readonly perProblemEvidence?: boolean;
  /**
   * The selector's inner state as a few named numbers, for the dashboard's selector-state panel (logged
   * each step as curriculum/state/<name>): e.g. sec/q/<arm>, bots/mean/<level>. Keep the count small
   * (aggregate per-problem state to levels). Absent: nothing to inspect beyond metrics().
   */
  inspect?(): Record<string, number>;
}

/** The selector's inspect() values as curriculum/state/… metrics ({} when it has none). */
export function selectorStateMetrics(selector: TaskSelector): Record<string, number> {
  const state = selector.inspect?.() ?? {};
  return Object.fromEntries(Object.entries(state).map(([key, value]) => [`curriculum/state/${key}`, value]));
}
