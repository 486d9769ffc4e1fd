// `oracle-prefix` (POPE) through plan/observe on real addition problems: only zero-success problems are
// guided, the prefix grows on failure up to a quarter of the solution, the first sufficient one is
// remembered, unguided attempts are mixed in 1:1, transfer is measured, and state/load is exact.
import { describe, expect, it } from 'vitest';
import type { Problem } from '../core/problem.ts';
import type { GroupOutcome } from '../core/selector.ts';
import { additionProblem } from '../tasks/addition.ts';
import type { Guidance, GuidanceContext } from './guidance.ts';
import { guidances } from './index.ts';

// 8-digit sum: solution of 8 columns (71 characters with newlines) + "\nA:" + 9 digits = 83 characters.
const hard = additionProblem('98765432', '12345678');
const easy = additionProblem('11111111', '22222222');
const pool = [hard, easy];
const context: GuidanceContext = { pool, totalSteps: 50, source: 'tasks addition' };
const outcome = (problem: Problem, rewards: number[]): GroupOutcome => ({
  problem,
  rewards,
  advantages: rewards.map(() => 0),
});
const oracle = (options: object = {}): Guidance => guidances.get('oracle-prefix')(options, context);

describe('oracle-prefix', () => {
  it('guides only problems whose unguided group had zero successes, growing the prefix per failure', () => {
    expect(hard.solution).toHaveLength(83);
    const guidance = oracle();
    expect(guidance.plan(pool, 1).map((attempt) => attempt.guided)).toEqual([false, false]);
    guidance.observe(1, [outcome(hard, [0, 0, 0, 0]), outcome(easy, [0, 1, 0, 0])]);
    // Levels k/4 · 1/4 · 83 characters: 5, 10, 15, 20.
    const lengths: number[] = [];
    for (let step = 2; step <= 6; step++) {
      const [attempt, other] = guidance.plan(pool, step);
      expect(other.guided).toBe(false);
      expect(attempt.guided).toBe(true);
      expect(attempt.prompt).toBe(hard.prompt);
      expect(hard.solution.startsWith(attempt.prefix)).toBe(true);
      lengths.push(attempt.prefix.length);
      guidance.observe(step, [outcome(hard, [0, 0, 0, 0]), outcome(easy, [1, 0, 0, 0])]);
    }
    // At the largest level (a quarter) the search keeps retrying there.
    expect(lengths).toEqual([5, 10, 15, 20, 20]);
    expect(guidance.metrics()).toMatchObject({
      'guidance/searching': 1,
      'guidance/remembered': 0,
      'guidance/unlocked': 0,
      'guidance/guided_frac': 0.5,
      'guidance/guided_pass_rate': 0,
      'guidance/strength': 20 / 83,
    });
  });

  it('remembers the shortest prefix that succeeded, then mixes unguided attempts 1:1 and measures transfer', () => {
    const guidance = oracle();
    guidance.plan([hard], 1);
    guidance.observe(1, [outcome(hard, [0, 0])]);
    expect(guidance.plan([hard], 2)[0].prefix).toHaveLength(5);
    guidance.observe(2, [outcome(hard, [0, 0])]);
    expect(guidance.plan([hard], 3)[0].prefix).toHaveLength(10);
    guidance.observe(3, [outcome(hard, [0, 1])]); // success at level 2: remembered
    expect(guidance.metrics()).toMatchObject({ 'guidance/unlocked': 1, 'guidance/remembered': 1 });
    const plans: string[] = [];
    for (let step = 4; step <= 7; step++) {
      const [attempt] = guidance.plan([hard], step);
      plans.push(attempt.guided ? `guided:${attempt.prefix.length}` : 'unguided');
      const rewards = attempt.guided ? [1, 0] : step === 6 ? [1, 0, 0, 0] : [0, 0];
      guidance.observe(step, [outcome(hard, rewards)]);
    }
    expect(plans).toEqual(['unguided', 'guided:10', 'unguided', 'guided:10']);
    // Step 6: an unguided group of a once-unlocked problem with 1 of 4 correct.
    expect(guidance.metrics()['guidance/transfer_pass_rate']).toBeUndefined(); // step 7 was guided
    expect(guidance.metrics()['guidance/transfer_solved']).toBe(1);
  });

  it('reports the transfer pass rate of the step, and grows a remembered prefix that fails again', () => {
    const guidance = oracle({ unguidedPerGuided: 2 });
    guidance.plan([hard], 1);
    guidance.observe(1, [outcome(hard, [0, 0])]);
    guidance.plan([hard], 2);
    guidance.observe(2, [outcome(hard, [1, 0])]); // level 1 suffices
    guidance.plan([hard, hard], 3); // two unguided visits (1:2 → guided, unguided, unguided)
    guidance.observe(3, [outcome(hard, [1, 0, 0, 0]), outcome(hard, [0, 0, 0, 0])]);
    expect(guidance.metrics()['guidance/transfer_pass_rate']).toBe(1 / 8);
    expect(guidance.metrics()['guidance/unguided_pass_rate']).toBe(1 / 8);
    const [attempt] = guidance.plan([hard], 4);
    expect(attempt.prefix).toHaveLength(5);
    guidance.observe(4, [outcome(hard, [0, 0])]);
    guidance.plan([hard, hard], 5);
    guidance.observe(5, [outcome(hard, [0, 0]), outcome(hard, [0, 0])]);
    expect(guidance.plan([hard], 6)[0].prefix).toHaveLength(10);
  });

  it('never forces a prefix containing the answer (a 1-digit sum: the guard drops it)', () => {
    // "3+4+0=07\nA:7": maxFraction 1, one level → the whole solution, cut before "07": "3+4+0=".
    const small = additionProblem('3', '4');
    const guidance = guidances.get('oracle-prefix')(
      { maxFraction: 1, levels: 1 },
      { pool: [small], totalSteps: 5, source: 'test' },
    );
    guidance.plan([small], 1);
    guidance.observe(1, [outcome(small, [0, 0])]);
    const [attempt] = guidance.plan([small], 2);
    expect(attempt.prefix).toBe('3+4+0=');
    expect(guidance.metrics()).toMatchObject({ 'guidance/leak_cut': 1, 'guidance/leak_dropped': 0 });
  });

  it('state() / load(): a fresh instance plans the same attempts and keeps every count', () => {
    // maxFraction 1 in 2 levels: level 2 is the whole solution, which the guard cuts (a leak to count).
    const guidance = oracle({ maxFraction: 1, levels: 2 });
    const script = (step: number): number[][] => [
      [0, step % 4 === 0 ? 1 : 0],
      [step % 3 === 0 ? 1 : 0, 0],
    ];
    for (let step = 1; step <= 5; step++) {
      guidance.plan(pool, step);
      const [a, b] = script(step);
      guidance.observe(step, [outcome(hard, a), outcome(easy, b)]);
    }
    const restored = oracle({ maxFraction: 1, levels: 2 });
    restored.load(JSON.parse(JSON.stringify(guidance.state())));
    for (let step = 6; step <= 14; step++) {
      expect(restored.plan(pool, step), `step ${step}`).toEqual(guidance.plan(pool, step));
      const [a, b] = script(step);
      guidance.observe(step, [outcome(hard, a), outcome(easy, b)]);
      restored.observe(step, [outcome(hard, a), outcome(easy, b)]);
      expect(restored.metrics()).toEqual(guidance.metrics());
    }
    expect(restored.state()).toEqual(guidance.state());
    expect(guidance.metrics()['guidance/unlocked']).toBeGreaterThan(0);
    // Full prefixes stop before the answer line (worked-solution.ts solutionUpTo): the guard never cuts.
    expect(guidance.metrics()['guidance/leak_cut']).toBe(0);
  });

  it('refuses a pool without worked solutions, naming the source', () => {
    expect(() =>
      guidances.get('oracle-prefix')(
        {},
        { pool: [{ ...hard, solution: ' ' }], totalSteps: 1, source: 'pool file p.jsonl' },
      ),
    ).toThrow(/guidance 'oracle-prefix' needs worked solutions, but 1 of 1 problems from pool file p.jsonl/);
  });
});
