// The simulated-learner testbed: run task selectors against a simulated learner and compare held-out
// learning curves. One step: select(batchSize) → G Bernoulli samples per problem at the learner's success
// probability → GRPO advantages → learner.learn → selector.observe → held-out accuracy.
// GRPO advantage (Shao et al., arXiv 2402.03300): A_i = (r_i − mean r)/(std r + 1e-6), with the unbiased
// std (torch.std, as in verl); a group whose rewards are all equal gets zeros.
import { ConfigError } from '../../core/errors.ts';
import type { Problem } from '../../core/problem.ts';
import { Rng } from '../../core/rng.ts';
import type { GroupOutcome } from '../../core/selector.ts';
import { siblingModule } from '../../core/sibling-module.ts';
import { selectors as selectorRegistry } from '../index.ts';
import { type LearnerSpec, SimulatedLearner } from './learner.ts';
import { learners } from './learners.ts';
import { heldOutProblems, simulatedPool } from './pool.ts';
import { areaUnderCurve, type Interval, stepsToTarget, tInterval } from './stats.ts';

export interface SelectorChoice {
  name: string;
  /** Options for the selector's factory; simulation defaults fill totalSteps and targets when absent. */
  options?: Record<string, unknown>;
  /** Label in tables and plots (default: name). */
  label?: string;
}

export interface SimulateOptions {
  selectors: (string | SelectorChoice)[];
  learner: string | LearnerSpec;
  steps: number;
  /** A count (seeds 1..n) or explicit seeds. */
  seeds: number | number[];
  batchSize?: number;
  groupSize?: number;
  /** Held-out accuracy that counts as reached (default 0.8). */
  target?: number;
  /** Pool problems per category × level (default 40). */
  perLevel?: number;
  /** Called after each (selector, seed) run. */
  onRun?: (label: string, seed: number) => void;
}

/** One selector's results in a simulation, over seeds. */
export interface SelectorResult {
  label: string;
  name: string;
  /** Normalised area under the held-out curve (mean accuracy over steps), over seeds. */
  auc: Interval;
  /** Held-out accuracy after the last step, over seeds. */
  finalAccuracy: Interval;
  /** Steps to reach the target for each seed ('never' when not reached). */
  stepsToTarget: (number | 'never')[];
  /** Interval over the seeds that reached the target; null when none did. */
  stepsToTargetReached: Interval | null;
  /** Per step (after each update): mean and 95% interval over seeds. */
  curve: { mean: number[]; low: number[]; high: number[] };
  /** Curve of each seed. */
  curves: number[][];
  wallMilliseconds: number;
}

/** A simulation's results: one SelectorResult per selector, with the settings it ran with. */
export interface SimulationResult {
  learner: string;
  steps: number;
  seeds: number[];
  batchSize: number;
  groupSize: number;
  target: number;
  results: SelectorResult[];
  wallMilliseconds: number;
}

/** GRPO advantages of one group of rewards. */
export function grpoAdvantages(rewards: readonly number[]): number[] {
  const n = rewards.length;
  if (n < 2) return rewards.map(() => 0);
  const average = rewards.reduce((sum, reward) => sum + reward, 0) / n;
  const std = Math.sqrt(rewards.reduce((sum, reward) => sum + (reward - average) ** 2, 0) / (n - 1));
  return rewards.map((reward) => (reward - average) / (std + 1e-6));
}

function resolveLearner(learner: string | LearnerSpec): LearnerSpec {
  return typeof learner === 'string' ? learners.get(learner) : learner;
}

/** Options the simulation supplies when the caller gives none: schedules span the run, targets = held-out. */
export function simulationDefaults(
  name: string,
  steps: number,
  heldOut: readonly Problem[],
): Record<string, unknown> {
  if (name === 'e2h' || name === 'hard-first') return { totalSteps: steps };
  if (name === 'target-relevance') return { targets: heldOut.map((problem) => problem.prompt) };
  return {};
}

/** Runs one selector with one seed; returns the held-out accuracy after each step. */
export function simulateRun(
  choice: SelectorChoice,
  learnerSpec: LearnerSpec,
  pool: Problem[],
  heldOut: readonly Problem[],
  seed: number,
  steps: number,
  batchSize: number,
  groupSize: number,
): number[] {
  const factory = selectorRegistry.get(choice.name);
  const selector = factory(pool, { ...simulationDefaults(choice.name, steps, heldOut), ...choice.options });
  const learner = new SimulatedLearner(learnerSpec);
  const selectionRng = new Rng(seed);
  const outcomeRng = new Rng(seed + 1_000_003);
  const curve: number[] = [];
  for (let step = 0; step < steps; step++) {
    const problems = selector.select(batchSize, selectionRng);
    const outcomes: GroupOutcome[] = problems.map((problem) => {
      const p = learner.successProbability(problem);
      const rewards = Array.from({ length: groupSize }, () => (outcomeRng.next() < p ? 1 : 0));
      return { problem, rewards, advantages: grpoAdvantages(rewards) };
    });
    learner.learn(outcomes);
    selector.observe(step, outcomes);
    curve.push(learner.heldOutAccuracy());
  }
  return curve;
}

/** One (selector, seed) run, as plain data a worker thread can receive. */
export interface SimulationTask {
  choice: SelectorChoice;
  learner: LearnerSpec;
  perLevel: number;
  seed: number;
  steps: number;
  batchSize: number;
  groupSize: number;
}

export interface SimulationRunResult {
  curve: number[];
  milliseconds: number;
}

// The pool and held-out set of the last learner seen: every run of one simulation shares them (they are
// deterministic in the learner and perLevel), so a thread builds them once, not once per run.
let world: { key: string; pool: Problem[]; heldOut: Problem[] } | null = null;

function worldFor(learner: LearnerSpec, perLevel: number): { pool: Problem[]; heldOut: Problem[] } {
  const key = JSON.stringify([learner, perLevel]);
  if (world?.key !== key) {
    world = { key, pool: simulatedPool(learner, perLevel), heldOut: heldOutProblems(learner) };
  }
  return world;
}

/** Runs one task (in this thread or in a worker: see run-worker.ts). */
export function runSimulationTask(task: SimulationTask): SimulationRunResult {
  const started = performance.now();
  const { pool, heldOut } = worldFor(task.learner, task.perLevel);
  const curve = simulateRun(
    task.choice,
    task.learner,
    pool,
    heldOut,
    task.seed,
    task.steps,
    task.batchSize,
    task.groupSize,
  );
  return { curve, milliseconds: performance.now() - started };
}

interface Plan {
  choices: SelectorChoice[];
  seeds: number[];
  tasks: SimulationTask[];
  batchSize: number;
  groupSize: number;
  target: number;
  learner: LearnerSpec;
}

function plan(options: SimulateOptions): Plan {
  const learner = resolveLearner(options.learner);
  const batchSize = options.batchSize ?? 32;
  const groupSize = options.groupSize ?? 8;
  const target = options.target ?? 0.8;
  const seeds =
    typeof options.seeds === 'number'
      ? Array.from({ length: options.seeds }, (_, i) => i + 1)
      : options.seeds;
  if (!(options.steps > 0) || seeds.length === 0 || !(batchSize > 0) || !(groupSize > 0)) {
    throw new ConfigError('simulate: steps, seeds, batch size and group size must all be positive');
  }
  const choices = options.selectors.map((choice) => (typeof choice === 'string' ? { name: choice } : choice));
  for (const choice of choices) selectorRegistry.get(choice.name); // unknown names fail before any run
  const perLevel = options.perLevel ?? 40;
  const tasks = choices.flatMap((choice) =>
    seeds.map((seed) => ({ choice, learner, perLevel, seed, steps: options.steps, batchSize, groupSize })),
  );
  return { choices, seeds, tasks, batchSize, groupSize, target, learner };
}

/** Runs every (selector, seed) in this thread. */
export function simulate(options: SimulateOptions): SimulationResult {
  const started = performance.now();
  const planned = plan(options);
  const runs = planned.tasks.map((task) => {
    const result = runSimulationTask(task);
    options.onRun?.(task.choice.label ?? task.choice.name, task.seed);
    return result;
  });
  return summarize(planned, options, runs, performance.now() - started);
}

/**
 * The same as simulate, with the runs spread over `jobs` worker threads (results are identical: every
 * run has its own seeded streams). jobs = 1 runs in this thread.
 */
export async function simulateParallel(
  options: SimulateOptions & { jobs: number },
): Promise<SimulationResult> {
  if (options.jobs <= 1) return simulate(options);
  const started = performance.now();
  const planned = plan(options);
  const { WorkerPool } = await import('../../core/worker-pool.ts');
  const pool = new WorkerPool<SimulationTask, SimulationRunResult>(
    siblingModule('./run-worker.ts', import.meta.url),
    {
      size: Math.min(options.jobs, planned.tasks.length),
      // A run is seconds; an hour means something is wrong, not slow.
      timeoutMs: 3_600_000,
    },
  );
  try {
    const runs = await Promise.all(
      planned.tasks.map(async (task) => {
        const result = await pool.run(task);
        options.onRun?.(task.choice.label ?? task.choice.name, task.seed);
        return result;
      }),
    );
    return summarize(planned, options, runs, performance.now() - started);
  } finally {
    await pool.close();
  }
}

function summarize(
  planned: Plan,
  options: SimulateOptions,
  runs: readonly SimulationRunResult[],
  wallMilliseconds: number,
): SimulationResult {
  const { choices, seeds, target } = planned;
  const results = choices.map((choice, index): SelectorResult => {
    const mine = runs.slice(index * seeds.length, (index + 1) * seeds.length);
    const curves = mine.map((run) => run.curve);
    const perStep = curves[0].map((_, step) => tInterval(curves.map((curve) => curve[step])));
    const reached = curves.map((curve) => stepsToTarget(curve, target));
    const reachedSteps = reached.filter((value): value is number => value !== 'never');
    return {
      label: choice.label ?? choice.name,
      name: choice.name,
      auc: tInterval(curves.map(areaUnderCurve)),
      finalAccuracy: tInterval(curves.map((curve) => curve[curve.length - 1])),
      stepsToTarget: reached,
      stepsToTargetReached: reachedSteps.length > 0 ? tInterval(reachedSteps) : null,
      curve: {
        mean: perStep.map((interval) => interval.mean),
        low: perStep.map((interval) => interval.low),
        high: perStep.map((interval) => interval.high),
      },
      curves,
      wallMilliseconds: mine.reduce((sum, run) => sum + run.milliseconds, 0),
    };
  });
  return {
    learner: planned.learner.name,
    steps: options.steps,
    seeds,
    batchSize: planned.batchSize,
    groupSize: planned.groupSize,
    target,
    results,
    wallMilliseconds,
  };
}
