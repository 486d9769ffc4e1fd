// Conformance suite: every registered task must pass these checks.
import { describe, expect, it } from 'vitest';
import { Rng } from '../core/rng.ts';
import { tasks } from './index.ts';
import { sampledMaxSequenceLength } from './lengths.ts';
import { solutionSteps } from './task.ts';

const garbage = [
  '',
  'A:',
  'A:\u0000',
  '\n\n\nA:  \n',
  'A:((((',
  'A:)*/',
  'a:1',
  'A:'.repeat(500),
  '🙂A:🙂',
  'A:1/0',
];

for (const name of tasks.names()) {
  const task = tasks.get(name);
  describe(`task ${name}`, () => {
    it('verifies its own worked solution at every difficulty, for many seeds', () => {
      for (let level = task.difficulty.min; level <= task.difficulty.max; level++) {
        for (let seed = 0; seed < 40; seed++) {
          const problem = task.generate(new Rng(seed * 31 + level), level);
          expect(problem.task).toBe(name);
          expect(problem.difficulty).toBe(level);
          expect(problem.category).toBe(name);
          expect(problem.id.startsWith(`${name}-${level}-`)).toBe(true);
          expect(problem.prompt.endsWith('\n')).toBe(true);
          expect(problem.solution.endsWith(`\nA:${problem.answer}`)).toBe(true);
          expect(task.extractAnswer(problem.solution)).toBe(problem.answer);
          const steps = solutionSteps(problem.solution);
          expect(steps.length).toBeGreaterThanOrEqual(1);
          expect(steps.filter((step) => step.startsWith('A:') || step === '')).toEqual([]);
          expect(task.verify(problem, problem.solution)).toEqual({
            correct: true,
            extracted: problem.answer,
          });
          const outside = [...(problem.prompt + problem.solution)].filter((c) => !task.alphabet.includes(c));
          expect(outside).toEqual([]);
        }
      }
    });

    it('rejects another problem’s answer and gives reasons for garbage instead of throwing', () => {
      const rng = new Rng(5);
      const problem = task.generate(rng, task.difficulty.max);
      let other = task.generate(rng, task.difficulty.max);
      // A task whose every answer is the same (countdown-unanswerable: the refusal) has no other answer.
      for (let tries = 0; tries < 20 && other.answer === problem.answer; tries++)
        other = task.generate(rng, task.difficulty.max);
      if (other.answer !== problem.answer) {
        const verdict = task.verify(problem, `A:${other.answer}`);
        // a countdown expression for other numbers can never use exactly this problem's numbers
        expect(verdict.correct).toBe(false);
        expect(verdict.reason).toBeTruthy();
      }
      for (const completion of garbage) {
        const result = task.verify(problem, completion);
        expect(result.correct).toBe(false);
        expect(typeof result.reason).toBe('string');
      }
    });

    it('is deterministic by seed, and ids follow the prompt', () => {
      const first = task.generate(new Rng(99), task.difficulty.min);
      const again = task.generate(new Rng(99), task.difficulty.min);
      expect(again).toEqual(first);
      expect(JSON.parse(JSON.stringify(first))).toEqual(first);
    });

    it('stays within its declared sequence-length bound', () => {
      for (let level = task.difficulty.min; level <= task.difficulty.max; level++) {
        const sampled = sampledMaxSequenceLength(task, level, { samples: 300 });
        if (task.maxSequenceTokens) expect(sampled).toBeLessThanOrEqual(task.maxSequenceTokens(level));
      }
    });

    it('generates from numeric parameters, clamping out-of-range values', () => {
      if (!task.generateFromParams || !task.parameters) return;
      const rng = new Rng(11);
      for (const position of [0, 0.5, 1, -1, 2]) {
        const params: Record<string, number> = {};
        for (const range of task.parameters)
          params[range.name] = range.min + position * (range.max - range.min);
        const problem = task.generateFromParams(rng, params);
        for (const range of task.parameters) {
          const value = problem.params[range.name] as number;
          expect(value).toBeGreaterThanOrEqual(range.min);
          expect(value).toBeLessThanOrEqual(range.max);
        }
        expect(task.verify(problem, problem.solution).correct).toBe(true);
      }
    });
  });
}
