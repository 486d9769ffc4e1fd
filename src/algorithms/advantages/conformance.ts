// Conformance of an advantage estimator (./estimator.ts): the checks every registered estimator passes
// (advantages.test.ts runs this on each) and a user's estimator can be run through (`checkAdvantage` in
// src/api/testing.ts): one finite advantage per sample and an `included` flag per sample, 0 where a
// sample is left out, the same result for the same input, options that resolve from {} to the schema's
// defaults, and — for a centred estimator (option `centred`) — advantages that sum to 0 in each group.
import { Checker, type ConformanceReport, deepEqual, preview } from '../../core/conformance.ts';
import type { AdvantageEstimator } from './estimator.ts';

/** Options of checkAdvantage. */
export interface AdvantageCheckOptions {
  /** The estimator subtracts a group baseline: every group's advantages sum to 0 (to 1e-9). */
  centred?: boolean;
  /** Options passed to estimate() (default: none, i.e. the defaults). */
  options?: unknown;
}

/** Groups of rewards with mixed, all-correct, all-wrong and fractional outcomes. */
const batch = [
  [1, 0, 0, 1],
  [1, 1, 1, 1],
  [0, 0, 0, 0],
  [0.5, 0.2, 0.9, 0.2],
];

/** Runs an estimator through the contract; throws ConformanceError at the first broken property. */
export function checkAdvantage(
  estimator: AdvantageEstimator,
  options: AdvantageCheckOptions = {},
): ConformanceReport {
  const check = new Checker(`advantage estimator '${estimator?.name}'`);
  check.that(typeof estimator === 'object' && estimator !== null, 'is an object');
  check.that(typeof estimator.name === 'string' && estimator.name.length > 0, 'has a name');
  for (const method of ['estimate', 'resolveOptions', 'validate'] as const) {
    check.that(typeof estimator[method] === 'function', `has a ${method}() method`);
  }
  check.that(Number.isInteger(estimator.minGroupSize) && estimator.minGroupSize >= 1, 'minGroupSize is ≥ 1');
  const groups = batch.map((rewards) => ({ rewards }));
  const first = check.call('estimate()', () => estimator.estimate(groups, options.options));
  const again = check.call('estimate() again', () => estimator.estimate(groups, options.options));
  check.that(deepEqual(first, again), 'estimate() is deterministic');
  check.that(
    Array.isArray(first?.advantages) && Array.isArray(first?.included),
    'estimate() returns {advantages, included}',
    () => preview(first),
  );
  check.that(
    deepEqual(
      first.advantages.map((row) => row?.length),
      batch.map((row) => row.length),
    ) &&
      deepEqual(
        first.included.map((row) => row?.length),
        batch.map((row) => row.length),
      ),
    'one advantage and one included flag per sample',
    () => preview(first),
  );
  first.advantages.forEach((row, i) => {
    row.forEach((value, j) => {
      check.that(
        Number.isFinite(value),
        'every advantage is finite',
        () => `group ${i}, sample ${j}: ${value}`,
      );
      if (!first.included[i][j]) {
        check.that(
          value === 0,
          'an excluded sample has advantage 0',
          () => `group ${i}, sample ${j}: ${value}`,
        );
      }
    });
  });
  if (options.centred) {
    first.advantages.forEach((row, i) => {
      const sum = row.reduce((total, value) => total + value, 0);
      check.that(
        Math.abs(sum) < 1e-9,
        "a centred estimator's advantages sum to 0 in each group",
        () => `group ${i}: ${sum}`,
      );
    });
  }
  if (estimator.optionsSchema) {
    const resolved = check.call('resolveOptions()', () => estimator.resolveOptions());
    check.that(
      deepEqual(resolved, estimator.optionsSchema.parse({})),
      "resolveOptions() gives the options schema's defaults",
      () => preview(resolved),
    );
  }
  return check.report();
}
