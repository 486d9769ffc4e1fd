import { describe, expect, it } from 'vitest';
import { Rng } from '../core/rng.ts';
import { outcome, testProblem } from '../testing/curricula/test-pool.ts';
import { createSec, secUpdate } from './sec.ts';
import { softmax } from './shared.ts';

describe('sec', () => {
  it('applies the EMA update, decaying absent arms as the authors do', () => {
    // α = 0.5: arm 0 observed with r = 0.8, arm 1 absent.
    expect(secUpdate([0.2, 0.4], [0.8, null], 0.5, true)).toEqual([0.5, 0.2]);
    expect(secUpdate([0.2, 0.4], [0.8, null], 0.5, false)).toEqual([0.5, 0.4]);
  });

  it('Boltzmann probabilities: softmax([0.5, 0.2] / 1) = [0.57444, 0.42556]', () => {
    const [first, second] = softmax([0.5, 0.2], 1);
    expect(first).toBeCloseTo(0.57444, 5);
    expect(second).toBeCloseTo(0.42556, 5);
  });

  it('learns Q from mean |advantage| per arm and reports the softmax', () => {
    const pool = [testProblem('easy', { difficulty: 1 }), testProblem('hard', { difficulty: 2 })];
    const selector = createSec(pool, { learningRate: 0.5, temperature: 0.5 });
    // Arm '1': |A| = 1, 1, 1, 1 → r = 1; arm '2' absent → stays 0 (decays from 0).
    selector.observe(0, [outcome(pool[0], [1, 0, 1, 0], [1, -1, 1, -1])]);
    const metrics = selector.metrics();
    expect(metrics['curriculum/1/q']).toBeCloseTo(0.5, 12);
    expect(metrics['curriculum/2/q']).toBe(0);
    // softmax([0.5, 0] / 0.5) = [e/(e+1), 1/(e+1)] = [0.73106, 0.26894].
    expect(metrics['curriculum/1/prob']).toBeCloseTo(0.73106, 5);
    expect(metrics['curriculum/2/prob']).toBeCloseTo(0.26894, 5);
    expect(metrics['curriculum/entropy']).toBeCloseTo(0.5822, 4); // −Σ p ln p = 0.22901 + 0.35319;
  });

  it('takes problems of an arm without replacement until the arm is exhausted', () => {
    const pool = ['a', 'b', 'c'].map((id) => testProblem(id, { difficulty: 1 }));
    const selector = createSec(pool, {});
    const ids = selector.select(3, new Rng(4)).map((problem) => problem.id);
    expect([...ids].sort()).toEqual(['a', 'b', 'c']);
  });

  it("ε-greedy as the authors' sample_arms: the exploring branch never takes the best arm", () => {
    const pool = [1, 2, 3].map((difficulty) => testProblem(`d${difficulty}`, { difficulty }));
    const selector = createSec(pool, { method: 'greedy', epsilon: 1, learningRate: 1 });
    selector.observe(0, [outcome(pool[1], [1, 0], [1, -1])]); // Q = [0, 1, 0]: arm '2' is best
    const picked = selector.select(200, new Rng(3)).map((problem) => problem.id);
    expect(picked).not.toContain('d2');
    expect(new Set(picked)).toEqual(new Set(['d1', 'd3']));
    // ε = 0.1: best arm 1 − ε, each other arm ε/(K − 1).
    const greedy = createSec(pool, { method: 'greedy', epsilon: 0.1, learningRate: 1 });
    greedy.observe(0, [outcome(pool[1], [1, 0], [1, -1])]);
    const metrics = greedy.metrics();
    expect(metrics['curriculum/2/prob']).toBeCloseTo(0.9, 12);
    expect(metrics['curriculum/1/prob']).toBeCloseTo(0.05, 12);
    expect(metrics['curriculum/3/prob']).toBeCloseTo(0.05, 12);
  });

  it('normalized_q: probabilities ∝ max(Q, 0.01)', () => {
    const pool = [1, 2].map((difficulty) => testProblem(`d${difficulty}`, { difficulty }));
    const selector = createSec(pool, { method: 'normalized_q', learningRate: 0.5 });
    selector.observe(0, [outcome(pool[0], [1, 0], [1, -1])]); // Q = [0.5, 0]
    const metrics = selector.metrics();
    expect(metrics['curriculum/1/prob']).toBeCloseTo(0.5 / 0.51, 12);
    expect(metrics['curriculum/2/prob']).toBeCloseTo(0.01 / 0.51, 12);
    const drawn = selector.select(2000, new Rng(5)).filter((problem) => problem.id === 'd2').length;
    expect(drawn).toBeGreaterThan(10); // expected 39
    expect(drawn).toBeLessThan(80);
  });
});
