// Conformance suite every registered selector runs, through checkSelector (src/curricula/conformance.ts),
// the helper a user runs on their own selector: it selects the requested number of problems from its
// pool, learns from graded groups, reports metrics under curriculum/…, and its state survives a JSON round
// trip exactly. The helper is also run on deliberately broken selectors: each failure names its reason.
import { describe, expect, it } from 'vitest';
import type { Problem } from '../core/problem.ts';
import type { TaskSelector } from '../core/selector.ts';
import { checkSelector, conformancePool } from './conformance.ts';
import { selectors } from './index.ts';
import { learners } from './simulate/learners.ts';
import { heldOutProblems } from './simulate/pool.ts';
import { simulationDefaults } from './simulate/simulate.ts';
import { createUniform } from './uniform.ts';

const heldOut = heldOutProblems(learners.get('irt'));
const smallOptions: Record<string, Record<string, unknown>> = {
  'alp-gmm': { bootstrapEpisodes: 20, fitRate: 20, fitWindow: 40, maxComponents: 4 },
  'target-relevance': { updateDelay: 3, minKept: 50 },
};

describe.each(selectors.names())('selector %s', (name) => {
  it('passes checkSelector', () => {
    const report = checkSelector(selectors.get(name), {
      name,
      options: { ...simulationDefaults(name, 40, heldOut), ...smallOptions[name] },
    });
    expect(report.checks).toContain('a restored selector makes the same next selections');
  });
});

describe('checkSelector on broken selectors', () => {
  const wrap =
    (change: (selector: TaskSelector) => Partial<TaskSelector>) => (pool: Problem[], options: unknown) => {
      const selector = createUniform(pool, options);
      return Object.assign(Object.create(selector), change(selector)) as TaskSelector;
    };

  it('names the broken property', () => {
    expect(checkSelector(createUniform, { name: 'uniform' }).checks.length).toBeGreaterThan(5);
    const short = wrap((s) => ({ select: (n, rng) => s.select(n, rng).slice(1) }));
    expect(() => checkSelector(short)).toThrow('select(n) returns n problems (7 for 8)');
    const nan = wrap(() => ({ metrics: () => ({ 'curriculum/x': Number.NaN }) }));
    expect(() => checkSelector(nan)).toThrow('metric values are finite numbers (curriculum/x = NaN)');
    const forgetful = wrap(() => ({ load: () => {} }));
    expect(() => checkSelector(forgetful)).toThrow('load(state()) restores the same state');
    const stranger = wrap(() => ({
      select: (n) => Array.from({ length: n }, () => ({ ...conformancePool()[0], id: 7 })) as never,
    }));
    expect(() => checkSelector(stranger)).toThrow('select() returns problems (with an id and a prompt)');
  });
});
