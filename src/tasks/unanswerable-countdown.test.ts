// countdown-unanswerable: every generated problem is truly unsolvable (checked by an independent brute
// force over ordered pairs, not the subset DP the generator uses), solvable countdown problems are found
// solvable by the same search, the refusal verifies, and the held-out split stays disjoint.
import { describe, expect, it } from 'vitest';
import { Rng } from '../core/rng.ts';
import { countdown, countdownInstance } from './countdown.ts';
import { isHeldOut } from './generate-set.ts';
import { tasks } from './index.ts';
import { heldOutFraction, heldOutProblems, ProblemMix } from './problem-mix.ts';
import { reachableTargets, refusalAnswer, unanswerableCountdown } from './unanswerable-countdown.ts';

/** Brute force: can `target` be made from all `values` (fractions [n, d], exact in doubles for n ≤ 4)? */
function solvable(values: [number, number][], target: number): boolean {
  if (values.length === 1) return values[0][1] !== 0 && values[0][0] === target * values[0][1];
  for (let i = 0; i < values.length; i++) {
    for (let j = 0; j < values.length; j++) {
      if (i === j) continue;
      const [an, ad] = values[i];
      const [bn, bd] = values[j];
      const rest = values.filter((_, k) => k !== i && k !== j);
      const candidates: [number, number][] = [
        [an * bd + bn * ad, ad * bd],
        [an * bd - bn * ad, ad * bd],
        [an * bn, ad * bd],
      ];
      if (bn !== 0) candidates.push(bn < 0 ? [-an * bd, -ad * bn] : [an * bd, ad * bn]);
      for (const value of candidates) if (solvable([...rest, value], target)) return true;
    }
  }
  return false;
}

describe('countdown-unanswerable', () => {
  it('generates problems no expression solves (brute force, 3 and 4 numbers)', () => {
    const rng = new Rng(11);
    for (const level of [3, 3, 3, 3, 3, 3, 4, 4, 4, 4]) {
      const problem = unanswerableCountdown.generate(rng, level);
      const instance = countdownInstance(problem);
      expect(instance).not.toBeNull();
      const { numbers, target } = instance!;
      expect(numbers).toHaveLength(level);
      expect(problem.metadata?.unanswerable).toBe(true);
      expect(
        solvable(
          numbers.map((value) => [value, 1]),
          target,
        ),
      ).toBe(false);
    }
  });

  it('the search finds every solvable countdown target (5 numbers too) and known small cases', () => {
    expect(reachableTargets([25, 3, 4]).has(112)).toBe(true); // (25+3)*4
    expect(
      solvable(
        [
          [3, 1],
          [5, 1],
          [7, 1],
        ],
        1,
      ),
    ).toBe(reachableTargets([3, 5, 7]).has(1));
    const rng = new Rng(4);
    for (const level of [3, 4, 5, 5]) {
      const problem = countdown.generate(rng, level);
      const { numbers, target } = countdownInstance(problem)!;
      expect(reachableTargets(numbers).has(target)).toBe(true);
    }
    // The search and the brute force agree on every target 1..200 for a few number sets ([2, 6]: 3 is
    // only 6/2, the right part over the left one).
    for (const numbers of [
      [2, 6],
      [6, 2, 1],
      [1, 2, 3],
      [7, 3, 50],
      [2, 9, 13, 40],
      [37, 5, 8, 11],
    ]) {
      const reachable = reachableTargets(numbers);
      const disagreements: number[] = [];
      for (let target = 1; target <= 200; target++) {
        const brute = solvable(
          numbers.map((value): [number, number] => [value, 1]),
          target,
        );
        if (reachable.has(target) !== brute) disagreements.push(target);
      }
      expect({ numbers, disagreements }).toEqual({ numbers, disagreements: [] });
    }
  });

  it('verifies the refusal line and nothing else', () => {
    const problem = unanswerableCountdown.generate(new Rng(2), 3);
    expect(problem.solution.endsWith(`\nA:${refusalAnswer}`)).toBe(true);
    expect(unanswerableCountdown.verify(problem, problem.solution).correct).toBe(true);
    expect(unanswerableCountdown.verify(problem, 'A:1+2+3').correct).toBe(false);
    expect(unanswerableCountdown.verify(problem, 'no idea').correct).toBe(false);
    expect(tasks.get('countdown-unanswerable')).toBe(unanswerableCountdown);
  });

  it('a mix with a 25% unanswerable share: training pool and held-out set are disjoint', () => {
    const mix = [
      { task: 'countdown', difficulties: [3], weight: 3 },
      { task: 'countdown-unanswerable', difficulties: [3], weight: 1 },
    ];
    const pool = new ProblemMix(mix).pool(80, new Rng(9));
    const unanswerable = pool.filter((problem) => problem.metadata?.unanswerable === true).length;
    expect(unanswerable).toBeGreaterThan(8);
    expect(unanswerable).toBeLessThan(36);
    const heldOut = heldOutProblems(mix, 10, 1);
    expect(heldOut.some((problem) => problem.task === 'countdown-unanswerable')).toBe(true);
    const ids = new Set(heldOut.map((problem) => problem.id));
    expect(pool.filter((problem) => ids.has(problem.id))).toEqual([]);
    expect(pool.every((problem) => !isHeldOut(problem, heldOutFraction))).toBe(true);
  });
});
