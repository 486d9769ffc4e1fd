// Conformance suite every registered selector runs: it selects the requested number of problems from
// its pool, learns from graded groups, reports metrics under curriculum/…, and its state survives a
// JSON round trip exactly (a fresh instance loaded from the state makes the same next selections).
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../core/errors.ts';
import { Rng } from '../core/rng.ts';
import type { GroupOutcome, TaskSelector } from '../core/selector.ts';
import { selectors } from './index.ts';
import { learners } from './simulate/learners.ts';
import { heldOutProblems, simulatedPool } from './simulate/pool.ts';
import { grpoAdvantages, simulationDefaults } from './simulate/simulate.ts';

const learner = learners.get('irt');
const pool = simulatedPool(learner, 6);
const heldOut = heldOutProblems(learner);
const smallOptions: Record<string, Record<string, unknown>> = {
  'alp-gmm': { bootstrapEpisodes: 20, fitRate: 20, fitWindow: 40, maxComponents: 4 },
  'target-relevance': { updateDelay: 3, minKept: 50 },
};

function create(name: string): TaskSelector {
  return selectors.get(name)(pool, { ...simulationDefaults(name, 40, heldOut), ...smallOptions[name] });
}

/** Runs `steps` select/observe rounds with outcomes drawn from a fixed success rule. */
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

describe.each(selectors.names())('selector %s', (name) => {
  it('selects the requested count and reports curriculum/ metrics', () => {
    const selector = create(name);
    expect(selector.name).toBe(name);
    drive(selector, new Rng(1), new Rng(2), 5);
    expect(selector.select(8, new Rng(3))).toHaveLength(8);
    const metrics = selector.metrics();
    expect(Object.keys(metrics).length).toBeGreaterThan(0);
    for (const [key, value] of Object.entries(metrics)) {
      expect(key.startsWith('curriculum/')).toBe(true);
      expect(Number.isFinite(value)).toBe(true);
    }
  });

  it('round-trips its state exactly through JSON', () => {
    const original = create(name);
    drive(original, new Rng(11), new Rng(12), 30);
    const saved = JSON.parse(JSON.stringify(original.state()));
    const restored = create(name);
    restored.load(saved);
    expect(restored.state()).toEqual(original.state());
    const next = drive(original, new Rng(21), new Rng(22), 15, 30);
    const nextRestored = drive(restored, new Rng(21), new Rng(22), 15, 30);
    expect(nextRestored).toEqual(next);
    expect(restored.metrics()).toEqual(original.metrics());
  });

  it('rejects unknown options with a ConfigError', () => {
    expect(() =>
      selectors.get(name)(pool, { ...simulationDefaults(name, 40, heldOut), noSuchOption: 1 }),
    ).toThrow(ConfigError);
  });
});
