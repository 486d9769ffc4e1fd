// The selector seen by the RL loop when self-play is on: the configured selector over the fixed pool,
// plus the generated pool (pool.ts). Each of a batch's slots is a generated problem with probability
// generated / (fixed + generated), drawn uniformly from the generated pool; the rest come from the base
// selector. Deviation from the brief ("the selector sees them as extra problems of their task/level"):
// selectors are built over a fixed pool and have no way to add problems, so generated problems are not
// seen by the base selector; their outcomes are not passed to it (it may not know their ids). With an
// empty generated pool, this consumes no randomness and behaves exactly like the base selector.
import type { Problem } from '../core/problem.ts';
import type { Rng } from '../core/rng.ts';
import type { GroupOutcome, TaskSelector } from '../core/selector.ts';
import type { GeneratedPool } from './pool.ts';

export function withGeneratedPool(
  base: TaskSelector,
  fixedPoolSize: number,
  pool: GeneratedPool,
): TaskSelector {
  const wrapped: TaskSelector = {
    name: base.name,
    select(count: number, rng: Rng): Problem[] {
      const generated = pool.problems();
      if (generated.length === 0) return base.select(count, rng);
      const share = generated.length / (generated.length + fixedPoolSize);
      const picked: Problem[] = [];
      for (let slot = 0; slot < count; slot++) {
        if (rng.next() < share) picked.push(generated[rng.int(0, generated.length - 1)]);
      }
      const fromBase = count - picked.length;
      return [...(fromBase > 0 ? base.select(fromBase, rng) : []), ...picked];
    },
    observe(step: number, outcomes: readonly GroupOutcome[]): void {
      const ids = new Set(pool.problems().map((problem) => problem.id));
      base.observe(
        step,
        outcomes.filter((outcome) => !ids.has(outcome.problem.id)),
      );
    },
    state: () => base.state(),
    load: (state) => base.load(state),
    metrics: () => base.metrics(),
  };
  if (base.perProblemEvidence !== undefined)
    Object.assign(wrapped, { perProblemEvidence: base.perProblemEvidence });
  if (base.inspect) wrapped.inspect = () => base.inspect!();
  return wrapped;
}
