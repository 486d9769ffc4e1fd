// Conformance of a task selector (src/core/selector.ts): the checks every registered selector passes
// (src/curricula/conformance.test.ts runs this on each) and a user's selector can be run through
// (`checkSelector` in src/api/testing.ts): it selects the requested number of problems from its pool,
// learns from graded groups, reports finite metrics under curriculum/…, and its state survives a JSON
// round trip exactly (a fresh instance loaded from the state makes the same next selections); a factory
// refuses unknown option keys with a ConfigError. The pool and the outcomes come from the simulated
// learner (src/curricula/simulate): an IRT learner's pool of 6 levels, success p = σ(3 − difficulty).
import { Checker, type ConformanceReport, deepEqual, preview } from '../core/conformance.ts';
import { ConfigError } from '../core/errors.ts';
import type { Problem } from '../core/problem.ts';
import { Rng } from '../core/rng.ts';
import type { GroupOutcome, TaskSelector } from '../core/selector.ts';
import type { SelectorFactory } from './index.ts';
import type { SelectorContext } from './shared.ts';
import { learners } from './simulate/learners.ts';
import { simulatedPool } from './simulate/pool.ts';
import { grpoAdvantages } from './simulate/simulate.ts';

/** Options of checkSelector. */
export interface SelectorCheckOptions {
  /** The name the selector must report (default: whatever it reports). */
  name?: string;
  /** Options given to the factory (default {}). */
  options?: Record<string, unknown>;
  /** The pool (default: the simulated learner's, 6 levels). */
  pool?: Problem[];
  context?: SelectorContext;
  /** Check that unknown option keys are refused with a ConfigError (default true). */
  strictOptions?: boolean;
}

/** The default pool of the selector checks: the IRT simulated learner's, 6 difficulty levels. */
export function conformancePool(): Problem[] {
  return simulatedPool(learners.get('irt'), 6);
}

/** Runs `steps` select/observe rounds with outcomes drawn from a fixed success rule; returns the ids. */
function drive(selector: TaskSelector, rng: Rng, outcomeRng: Rng, steps: number, firstStep = 0): string[][] {
  const batches: string[][] = [];
  for (let step = firstStep; step < firstStep + steps; step++) {
    const problems = selector.select(8, rng);
    batches.push(problems.map((problem) => problem.id));
    const outcomes: GroupOutcome[] = problems.map((problem) => {
      const p = 1 / (1 + Math.exp(problem.difficulty - 3));
      const rewards = Array.from({ length: 4 }, () => (outcomeRng.next() < p ? 1 : 0));
      return { problem, rewards, advantages: grpoAdvantages(rewards) };
    });
    selector.observe(step, outcomes);
  }
  return batches;
}

/** Runs a selector factory through the selector contract; throws ConformanceError at the first failure. */
export function checkSelector(
  factory: SelectorFactory,
  options: SelectorCheckOptions = {},
): ConformanceReport {
  const label = options.name ?? (factory.name || 'factory');
  const check = new Checker(`selector '${label}'`);
  check.that(typeof factory === 'function', 'is a factory (pool, options, context) → TaskSelector');
  const pool = options.pool ?? conformancePool();
  const create = () => check.call('the factory', () => factory(pool, options.options ?? {}, options.context));
  const selector = create();
  check.that(typeof selector === 'object' && selector !== null, 'the factory returns an object', () =>
    preview(selector),
  );
  for (const method of ['select', 'observe', 'state', 'load', 'metrics'] as const) {
    check.that(typeof selector[method] === 'function', `has a ${method}() method`);
  }
  if (options.name !== undefined) {
    check.that(selector.name === options.name, 'reports its registered name', () => preview(selector.name));
  }
  check.call('select/observe for 5 steps', () => drive(selector, new Rng(1), new Rng(2), 5));
  const selected = check.call('select(8)', () => selector.select(8, new Rng(3)));
  check.that(
    Array.isArray(selected) && selected.length === 8,
    'select(n) returns n problems',
    () => `${preview(selected?.length)} for 8`,
  );
  // Not necessarily the pool's own objects: a reverse curriculum returns partial-solution variants.
  check.that(
    selected.every((problem) => typeof problem?.id === 'string' && typeof problem.prompt === 'string'),
    'select() returns problems (with an id and a prompt)',
    () => preview(selected.find((problem) => typeof problem?.id !== 'string')),
  );
  const metrics = check.call('metrics()', () => selector.metrics());
  check.that(typeof metrics === 'object' && metrics !== null, 'metrics() returns an object', () =>
    preview(metrics),
  );
  check.that(Object.keys(metrics).length > 0, 'metrics() reports at least one metric');
  for (const [key, value] of Object.entries(metrics)) {
    check.that(key.startsWith('curriculum/'), "metric keys start with 'curriculum/'", () => key);
    check.that(Number.isFinite(value), 'metric values are finite numbers', () => `${key} = ${value}`);
  }

  const original = create();
  drive(original, new Rng(11), new Rng(12), 30);
  const saved = check.call('state() through JSON', () => JSON.parse(JSON.stringify(original.state())));
  const restored = create();
  check.call('load(state)', () => restored.load(saved));
  check.that(
    deepEqual(restored.state(), original.state()),
    'load(state()) restores the same state',
    () => `${preview(restored.state())} vs ${preview(original.state())}`,
  );
  const next = drive(original, new Rng(21), new Rng(22), 15, 30);
  const nextRestored = drive(restored, new Rng(21), new Rng(22), 15, 30);
  check.that(deepEqual(nextRestored, next), 'a restored selector makes the same next selections');
  check.that(
    deepEqual(restored.metrics(), original.metrics()),
    'a restored selector reports the same metrics',
  );

  if (options.strictOptions !== false) {
    check.throws('the factory refuses unknown option keys with a ConfigError', ConfigError, () =>
      factory(pool, { ...options.options, conformanceBogusKey: 1 }, options.context),
    );
  }
  return check.report();
}
