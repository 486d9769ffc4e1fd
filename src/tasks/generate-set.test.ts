import { describe, expect, it } from 'vitest';
import { UserError } from '../core/errors.ts';
import { Rng } from '../core/rng.ts';
import { generateSet, generateTrainingProblem, isHeldOut, splitProblemSets } from './generate-set.ts';
import { tasks } from './index.ts';

describe('generateSet', () => {
  it('is deterministic by seed, distinct, and in difficulty order', () => {
    const options = { task: 'addition', difficulties: [2, 4], count: 30, seed: 5 };
    const first = generateSet(options);
    expect(generateSet(options)).toEqual(first);
    expect(generateSet({ ...options, seed: 6 })).not.toEqual(first);
    expect(first.map((problem) => problem.difficulty)).toEqual([...Array(30).fill(2), ...Array(30).fill(4)]);
    expect(new Set(first.map((problem) => problem.id)).size).toBe(60);
    // a difficulty's problems do not depend on which other difficulties are asked for
    expect(generateSet({ ...options, difficulties: [4] })).toEqual(first.slice(30));
  });

  it('honours exclude by id and prompt', () => {
    const all = generateSet({ task: 'addition', difficulties: [1], count: 100, seed: 1 });
    expect(all).toHaveLength(100); // every 1-digit pair (10 × 10)
    const rest = generateSet({
      task: 'addition',
      difficulties: [1],
      count: 60,
      seed: 2,
      exclude: all.slice(0, 40),
    });
    expect(
      rest.filter((problem) => all.slice(0, 40).some((excluded) => excluded.prompt === problem.prompt)),
    ).toEqual([]);
  });

  it('fails clearly when a difficulty has too few distinct problems, unless allowFewer', () => {
    const options = { task: 'addition', difficulties: [1], count: 101, seed: 1 };
    expect(() => generateSet(options)).toThrow(UserError);
    expect(() => generateSet(options)).toThrow(
      'addition difficulty 1: found only 100 of 101 distinct problems',
    );
    expect(generateSet({ ...options, allowFewer: true })).toHaveLength(100);
  });
});

describe('held-out split', () => {
  it('never overlaps training problems, by id or by prompt, for every task', () => {
    for (const name of tasks.names()) {
      const task = tasks.get(name);
      const difficulties = [task.difficulty.max - 1, task.difficulty.max];
      const { train, heldOut } = splitProblemSets({
        task: name,
        difficulties,
        trainCount: 80,
        heldOutCount: 20,
        seed: 3,
      });
      expect(heldOut).toHaveLength(40);
      expect(train).toHaveLength(160);
      const heldOutIds = new Set(heldOut.map((problem) => problem.id));
      const heldOutPrompts = new Set(heldOut.map((problem) => problem.prompt));
      expect(
        train.filter((problem) => heldOutIds.has(problem.id) || heldOutPrompts.has(problem.prompt)),
      ).toEqual([]);
      // and a training set from any other seed cannot hit them either
      const { train: otherTrain } = splitProblemSets({
        task: name,
        difficulties,
        trainCount: 80,
        heldOutCount: 1,
        seed: 4,
      });
      expect(otherTrain.filter((problem) => heldOutIds.has(problem.id))).toEqual([]);
    }
  });

  it('exhausts the 1-digit addition space into disjoint parts', () => {
    const { train, heldOut } = splitProblemSets({
      task: 'addition',
      difficulties: [1],
      trainCount: 100,
      heldOutCount: 100,
      seed: 0,
      allowFewer: true,
    });
    expect(train.length + heldOut.length).toBe(100);
    expect(heldOut.length).toBeGreaterThan(5);
    expect(heldOut.length).toBeLessThan(40);
  });

  it('online training problems are never held out', () => {
    const rng = new Rng(1);
    const task = tasks.get('modular-chain');
    for (let i = 0; i < 300; i++)
      expect(isHeldOut(generateTrainingProblem(task, rng, 1, 0.5), 0.5)).toBe(false);
    expect(() =>
      splitProblemSets({
        task: 'addition',
        difficulties: [1],
        trainCount: 1,
        heldOutCount: 1,
        seed: 0,
        heldOutFraction: 1,
      }),
    ).toThrow(RangeError);
  });
});
