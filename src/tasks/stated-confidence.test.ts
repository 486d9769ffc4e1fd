import { describe, expect, it } from 'vitest';
import { Rng } from '../core/rng.ts';
import { statedConfidence } from '../rewards/calibration.ts';
import { alignedAddition } from './aligned-addition.ts';
import { tasks } from './index.ts';
import { alignedAdditionConfidence, uninformedConfidence } from './stated-confidence.ts';
import { solutionSteps } from './task.ts';

describe('aligned-addition-confidence: worked solutions end with an uninformative C:q line', () => {
  it("is aligned-addition's problem with a confidence line after the answer, graded the same", () => {
    const plain = alignedAddition.generate(new Rng(3), 4);
    const problem = alignedAdditionConfidence.generate(new Rng(3), 4);
    expect(problem.prompt).toBe(plain.prompt);
    expect(problem.answer).toBe(plain.answer);
    expect(problem.task).toBe('aligned-addition-confidence');
    expect(problem.solution).toBe(`${plain.solution}\nC:${uninformedConfidence(plain.prompt)}`);
    expect(alignedAdditionConfidence.verify(problem, problem.solution).correct).toBe(true);
    expect(alignedAdditionConfidence.verify(problem, `${plain.solution}x\nC:0.5`).correct).toBe(false);
    expect(statedConfidence(problem.solution)).toBe(Number(uninformedConfidence(plain.prompt)));
    expect(tasks.get('aligned-addition-confidence')).toBeDefined();
    // hints and reverse curricula cut step lines: neither the answer nor the confidence line is one
    expect(solutionSteps(problem.solution)).toEqual(solutionSteps(plain.solution));
    expect(solutionSteps(problem.solution).join('\n')).not.toContain('A:');
  });

  it('the sequence bound is exact at every level and the alphabet covers every solution', () => {
    for (let level = 1; level <= 10; level++) {
      let longest = 0;
      const rng = new Rng(level);
      for (let i = 0; i < 200; i++) {
        const problem = alignedAdditionConfidence.generate(rng, level);
        longest = Math.max(longest, problem.prompt.length + problem.solution.length + 2);
        for (const char of problem.prompt + problem.solution) {
          expect(alignedAdditionConfidence.alphabet).toContain(char);
        }
      }
      expect(longest).toBeLessThanOrEqual(alignedAdditionConfidence.maxSequenceTokens?.(level) ?? 0);
      expect(longest).toBeGreaterThanOrEqual((alignedAdditionConfidence.maxSequenceTokens?.(level) ?? 0) - 1);
    }
  });

  it('the stated confidences say nothing about difficulty: near-uniform over 0.0 … 1.0 at every level', () => {
    for (const level of [4, 8]) {
      const counts = new Map<string, number>();
      const rng = new Rng(11);
      for (let i = 0; i < 2200; i++) {
        const q = uninformedConfidence(alignedAdditionConfidence.generate(rng, level).prompt);
        counts.set(q, (counts.get(q) ?? 0) + 1);
      }
      expect([...counts.keys()].sort()).toEqual(
        ['0.0', '0.1', '0.2', '0.3', '0.4', '0.5', '0.6', '0.7', '0.8', '0.9', '1.0'].sort(),
      );
      for (const count of counts.values()) expect(count).toBeGreaterThan(140);
      for (const count of counts.values()) expect(count).toBeLessThan(260);
    }
  });
});
