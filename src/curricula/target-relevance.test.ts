import { describe, expect, it } from 'vitest';
import { Rng } from '../core/rng.ts';
import { outcome, testProblem } from '../testing/curricula/test-pool.ts';
import { createTargetRelevance, updateAchievability } from './target-relevance.ts';
import { cosineToDense, embedText, hashedNgrams } from './text-embedding.ts';

describe('text embedding', () => {
  it('identical texts have cosine 1, disjoint ones 0', () => {
    expect(cosineToDense(hashedNgrams('add two numbers'), embedText('add two numbers'))).toBeCloseTo(1, 12);
    expect(cosineToDense(hashedNgrams('aaaa'), embedText('zzzz'))).toBe(0);
  });
});

describe('target-relevance', () => {
  it('achievability: trained problems take their accuracy, the rest shift by δ clipped to ±0.5', () => {
    const estimates = Float64Array.from([0.5, 0.5, 0.5]);
    // logit(0.8) − logit(0.5) = 1.386 → clipped to 0.5; σ(0.5) = 0.622459.
    const shift = updateAchievability(estimates, new Map([[0, 0.8]]), 0.5, 0.05);
    expect(shift).toBe(0.5);
    expect(estimates[0]).toBe(0.8);
    expect(estimates[1]).toBeCloseTo(0.622459, 6);
    // A small observed gap is applied as is: logit(0.55) − logit(0.5) = 0.200671.
    const small = Float64Array.from([0.5, 0.5]);
    expect(updateAchievability(small, new Map([[0, 0.55]]), 0.5, 0.05)).toBeCloseTo(0.200671, 6);
  });

  it('prefers problems similar to the targets, within the achievability band', () => {
    const pool = [
      testProblem('geo', { prompt: 'find the area of a triangle with base 3 and height 4' }),
      testProblem('alg', { prompt: 'solve for x: 3x + 4 = 19' }),
      testProblem('txt', { prompt: 'reverse the string hello' }),
    ];
    const selector = createTargetRelevance(pool, {
      targets: ['find the area of a triangle with base 5 and height 2'],
      updateDelay: 1,
      minKept: 0,
    });
    expect(selector.select(1, new Rng(1))[0].id).toBe('geo');
    // geo turns out to be solved every time → leaves the band; the next most relevant is chosen.
    selector.observe(0, [outcome(pool[0], [1, 1, 1, 1])]);
    expect(selector.select(1, new Rng(1))[0].id).not.toBe('geo');
  });

  it("keeps each problem's latest pass rate between updates, as the authors' dict update does", () => {
    const pool = [testProblem('a'), testProblem('b')];
    const selector = createTargetRelevance(pool, { targets: ['problem a'], updateDelay: 2, minKept: 0 });
    selector.observe(0, [outcome(pool[0], [1, 1, 1, 1])]);
    selector.observe(1, [outcome(pool[0], [0, 0, 0, 0])]); // the update at step 2 sees a at 0, not 0.5
    const state = selector.state() as { estimates: number[] };
    expect(state.estimates[0]).toBe(0);
    // Within one step a problem drawn twice averages its rollouts: 3 of 4 then 1 of 4 → 0.5.
    const twice = createTargetRelevance(pool, { targets: ['problem a'], updateDelay: 1, minKept: 0 });
    twice.observe(0, [outcome(pool[0], [1, 1, 1, 0]), outcome(pool[0], [1, 0, 0, 0])]);
    expect((twice.state() as { estimates: number[] }).estimates[0]).toBe(0.5);
  });

  it('on a pool under 1000 problems the band still filters: the floor is one subset (batch × updateDelay)', () => {
    // 30 problems out of the band but most relevant to the target; 10 in the band, less relevant.
    const outside = Array.from({ length: 30 }, (_, index) =>
      testProblem(`out${index}`, { prompt: `area of a triangle ${index}`, metadata: { prior: 0.95 } }),
    );
    const inside = Array.from({ length: 10 }, (_, index) =>
      testProblem(`in${index}`, { prompt: `reverse a string ${index}`, metadata: { prior: 0.4 } }),
    );
    const selector = createTargetRelevance([...outside, ...inside], {
      targets: ['area of a triangle'],
      priorKey: 'prior',
      updateDelay: 2,
    });
    const picked = [0, 1].flatMap(() => selector.select(2, new Rng(1)).map((problem) => problem.id));
    expect(picked.every((id) => id.startsWith('in'))).toBe(true);
    expect(selector.metrics()['curriculum/kept_count']).toBe(10);
  });
});
