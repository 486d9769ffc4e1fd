import { describe, expect, it } from 'vitest';
import { ConfigError } from '../core/errors.ts';
import { Rng } from '../core/rng.ts';
import { outcome, testProblem } from '../testing/curricula/test-pool.ts';
import { createAlpGmm } from './alp-gmm.ts';
import { cholesky, fitBestGmm, fitGmm, gaussianLogDensity } from './gmm.ts';

describe('gmm', () => {
  it('Cholesky of [[4, 2], [2, 3]] is [[2, 0], [1, √2]]', () => {
    const lower = cholesky([
      [4, 2],
      [2, 3],
    ]);
    expect(lower[0]).toEqual([2, 0]);
    expect(lower[1][0]).toBe(1);
    expect(lower[1][1]).toBeCloseTo(Math.SQRT2, 12);
  });

  it('log density of the standard normal at 0 is −½·log 2π = −0.918939', () => {
    expect(gaussianLogDensity([0], [0], [[1]])).toBeCloseTo(-0.918939, 6);
    // 2-D, unit covariance, at (1, 1): −log 2π − 1.
    expect(
      gaussianLogDensity(
        [1, 1],
        [0, 0],
        [
          [1, 0],
          [0, 1],
        ],
      ),
    ).toBeCloseTo(-Math.log(2 * Math.PI) - 1, 12);
  });

  it('recovers two well-separated clusters and AIC prefers k = 2 over k = 1', () => {
    const rng = new Rng(5);
    const points = Array.from({ length: 200 }, (_, i) => {
      const centre = i < 100 ? 0 : 10;
      return [rng.normal(centre, 1), rng.normal(centre, 1)];
    });
    const fit = fitGmm(points, 2, new Rng(1));
    const means = fit.means.map((mean) => mean[0]).sort((a, b) => a - b);
    expect(means[0]).toBeCloseTo(0, 0);
    expect(means[1]).toBeCloseTo(10, 0);
    fit.weights.forEach((weight) => {
      expect(weight).toBeCloseTo(0.5, 1);
    });
    expect(fitBestGmm(points, 1, 3, new Rng(2)).weights.length).toBeGreaterThanOrEqual(2);
  });
});

describe('alp-gmm', () => {
  const pool = Array.from({ length: 40 }, (_, i) =>
    testProblem(`p${i}`, { params: { digits: i % 4, carries: Math.floor(i / 4) }, difficulty: i % 4 }),
  );

  it('bootstraps uniformly, then fits a mixture after the bootstrap episodes', () => {
    const selector = createAlpGmm(pool, { bootstrapEpisodes: 12, fitRate: 12, maxComponents: 3 });
    const rng = new Rng(1);
    for (let step = 0; step < 4; step++) {
      const batch = selector.select(4, rng);
      selector.observe(
        step,
        batch.map((problem) =>
          outcome(problem, [step % 2, 1, 0, (problem.params.digits as number) > 1 ? 1 : 0]),
        ),
      );
    }
    expect(selector.metrics()['curriculum/components']).toBeGreaterThanOrEqual(2);
    expect(selector.select(6, rng)).toHaveLength(6);
  });

  it('ALP = |r − r(nearest earlier)|: a problem going from 0/4 to 3/4 has ALP 0.75', () => {
    const selector = createAlpGmm(pool, { bootstrapEpisodes: 1000 });
    // Six distinct earlier points first (ALP is 0 until the history holds more than 5).
    selector.observe(
      0,
      pool.slice(0, 6).map((problem) => outcome(problem, [0, 0, 0, 0])),
    );
    selector.observe(1, [outcome(pool[0], [1, 1, 1, 0])]);
    expect(selector.metrics()['curriculum/alp']).toBeCloseTo(0.75, 12);
  });

  it('fails at construction without numeric params, naming the problem', () => {
    const bad = [testProblem('a'), testProblem('b', { params: { digits: 'three' } })];
    expect(() => createAlpGmm(bad, {})).toThrow(ConfigError);
    expect(() => createAlpGmm(bad, {})).toThrow(/alp-gmm.*params.*'b'/);
    expect(() => createAlpGmm([testProblem('c', { params: {} })], {})).toThrow(/'c'/);
    // With explicit paramKeys every problem must have each of them.
    const partial = [testProblem('d'), testProblem('e', { params: { terms: 2 } })];
    expect(() => createAlpGmm(partial, { paramKeys: ['digits'] })).toThrow(/params\.digits.*'e'/);
  });

  it('spans a mixed-task pool: the union of numeric params plus a task axis', () => {
    const mixed = [
      ...Array.from({ length: 6 }, (_, i) =>
        testProblem(`add${i}`, { task: 'addition', params: { digits: i } }),
      ),
      ...Array.from({ length: 6 }, (_, i) =>
        testProblem(`mod${i}`, { task: 'modular', params: { steps: i, modulus: 7 } }),
      ),
    ];
    const selector = createAlpGmm(mixed, {});
    const chosen = selector.select(12, new Rng(3));
    expect(new Set(chosen.map((problem) => problem.task))).toEqual(new Set(['addition', 'modular']));
  });

  it('warm start reuses the previous fit per k and survives a state round trip', () => {
    const options = { bootstrapEpisodes: 8, fitRate: 8, maxComponents: 3, warmStart: true };
    const drive = (selector: ReturnType<typeof createAlpGmm>, rng: Rng, from: number, steps: number) => {
      const ids: string[] = [];
      for (let step = from; step < from + steps; step++) {
        const batch = selector.select(4, rng);
        ids.push(...batch.map((problem) => problem.id));
        selector.observe(
          step,
          batch.map((problem) =>
            outcome(problem, [step % 2, (problem.params.digits as number) > 1 ? 1 : 0, 1, 0]),
          ),
        );
      }
      return ids;
    };
    const original = createAlpGmm(pool, options);
    drive(original, new Rng(1), 0, 6);
    expect((original.state() as { warmFits: unknown[] }).warmFits.length).toBe(2); // k = 2, 3
    const restored = createAlpGmm(pool, options);
    restored.load(JSON.parse(JSON.stringify(original.state())));
    expect(drive(restored, new Rng(2), 6, 6)).toEqual(drive(original, new Rng(2), 6, 6));
  });
});
