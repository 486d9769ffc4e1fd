import { describe, expect, it } from 'vitest';
import { ConfigError } from '../core/errors.ts';
import { Rng } from '../core/rng.ts';
import { outcome, testProblem } from '../testing/curricula/test-pool.ts';
import { adarftOptions, adarftUpdate, createAdarft } from './adarft.ts';

const defaults = adarftOptions.parse({});

describe('adarft', () => {
  it('moves the target by η·tanh(α·(R̄ − β)): R̄ = 0.8 from T = 0 gives 50·tanh(0.6) = 26.8525', () => {
    expect(adarftUpdate(0, 0.8, defaults)).toBeCloseTo(26.85252, 4);
    expect(adarftUpdate(30, 0.8, defaults)).toBeCloseTo(56.85252, 4);
    // Clipped at d_min = 0 and d_max = 100.
    expect(adarftUpdate(10, 0, defaults)).toBe(0);
    expect(adarftUpdate(90, 1, defaults)).toBe(100);
  });

  it('selects the problems nearest the target and updates it from the mean reward', () => {
    // Difficulties 0..4 map onto 0, 25, 50, 75, 100.
    const pool = [0, 1, 2, 3, 4].map((level) => testProblem(`d${level}`, { difficulty: level }));
    const selector = createAdarft(pool, {});
    const rng = new Rng(1);
    expect(selector.select(2, rng).map((problem) => problem.id)).toEqual(['d0', 'd1']);
    const batch = selector.select(1, rng);
    // Mean reward 0.8 over 5 responses (4 of 5 correct).
    selector.observe(0, [outcome(batch[0], [1, 1, 1, 1, 0])]);
    expect(selector.metrics()['curriculum/target_difficulty']).toBeCloseTo(26.85252, 4);
    // T ≈ 26.9 is nearest 25 (d1), then 50 (d2).
    expect(selector.select(2, rng).map((problem) => problem.id)).toEqual(['d1', 'd2']);
  });

  it('breaks ties at random within a level', () => {
    const pool = Array.from({ length: 20 }, (_, i) => testProblem(`p${i}`, { difficulty: 0 }));
    pool.push(testProblem('hard', { difficulty: 5 }));
    const selector = createAdarft(pool, {});
    const first = selector.select(3, new Rng(1)).map((problem) => problem.id);
    const second = selector.select(3, new Rng(2)).map((problem) => problem.id);
    expect(first).not.toEqual(second);
    expect([...first, ...second].every((id) => id !== 'hard')).toBe(true);
  });

  it('fails at construction when a problem has no difficulty, naming the problem', () => {
    const pool = [testProblem('a'), testProblem('b', { difficulty: undefined as unknown as number })];
    expect(() => createAdarft(pool, {})).toThrow(ConfigError);
    expect(() => createAdarft(pool, {})).toThrow(/adarft.*'difficulty'.*'b'/);
  });
});
