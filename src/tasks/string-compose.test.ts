import { describe, expect, it } from 'vitest';
import { Rng } from '../core/rng.ts';
import { canonicalPartition, isHeldOut } from './held-out-partition.ts';
import {
  stringCompose,
  stringComposeCanonicalKey,
  stringComposeProblem,
  stringFunctions,
} from './string-compose.ts';

describe('string-compose', () => {
  it('applies each atomic function as hand-checked', () => {
    const f = stringFunctions;
    expect(f.rev('abcd')).toBe('dcba');
    expect(f.rol('abcd')).toBe('bcda');
    expect(f.ror('abcd')).toBe('dabc');
    expect(f.swp('abcd')).toBe('badc');
    expect(f.swp('abcde')).toBe('badce');
    expect(f.inc('abz')).toBe('bca');
    expect(f.dec('abz')).toBe('zay');
    expect(f.dup('abc')).toBe('aabc');
    expect(f.drp('abc')).toBe('bc');
  });

  it('writes every intermediate string, functions applied left to right', () => {
    const problem = stringComposeProblem('abcd', ['rev', 'swp', 'inc']);
    expect(problem.prompt).toBe('abcd|rev|swp|inc\n');
    // abcd -rev-> dcba -swp-> cdab -inc-> debc
    expect(problem.solution).toBe('rev:dcba\nswp:cdab\ninc:debc\nA:debc');
    expect(problem.answer).toBe('debc');
    expect(problem.params).toEqual({ depth: 3, length: 4, functions: 'rev,swp,inc' });
    expect(stringCompose.verify(problem, problem.solution).correct).toBe(true);
    expect(stringCompose.verify(problem, 'A:dcba')).toMatchObject({ correct: false, extracted: 'dcba' });
    expect(stringCompose.verify(problem, 'rev:dcba')).toMatchObject({ correct: false, extracted: null });
  });

  it('keeps strings within 2..6 letters and never undoes the previous function', () => {
    const inverse: Record<string, string> = {
      rev: 'rev',
      swp: 'swp',
      rol: 'ror',
      ror: 'rol',
      inc: 'dec',
      dec: 'inc',
      dup: 'drp',
    };
    const rng = new Rng(3);
    for (let i = 0; i < 200; i++) {
      const problem = stringCompose.generate(rng, 6);
      const functions = String(problem.params.functions).split(',');
      expect(functions).toHaveLength(6);
      for (let j = 1; j < functions.length; j++) expect(inverse[functions[j - 1]]).not.toBe(functions[j]);
      for (const line of problem.solution.split('\n')) {
        const word = line.split(':')[1];
        expect(word.length).toBeGreaterThanOrEqual(2);
        expect(word.length).toBeLessThanOrEqual(6);
      }
    }
  });
});

describe('string-compose split by composition (partition canonical)', () => {
  it('keys depth ≥ 2 by the function sequence and depth 1 by the prompt', () => {
    const a = stringComposeProblem('abcd', ['rev', 'swp']);
    const b = stringComposeProblem('xyzab', ['rev', 'swp']);
    expect(stringComposeCanonicalKey(a)).toBe(stringComposeCanonicalKey(b));
    expect(stringComposeCanonicalKey(a)).not.toBe(
      stringComposeCanonicalKey(stringComposeProblem('abcd', ['swp', 'rev'])),
    );
    expect(stringComposeCanonicalKey(stringComposeProblem('abcd', ['rev']))).not.toBe(
      stringComposeCanonicalKey(stringComposeProblem('wxyz', ['rev'])),
    );
  });

  it('holds out whole compositions: no held-out composition is ever a training one, every atomic function is trained', () => {
    const task = canonicalPartition(stringCompose, 'test');
    const rng = new Rng(7);
    const train = new Set<string>();
    const heldOut = new Set<string>();
    const trainedFunctions = new Set<string>();
    for (let i = 0; i < 4000; i++) {
      const problem = task.generate(rng, 1 + (i % 3));
      const functions = String(problem.params.functions);
      const side = isHeldOut(problem, 0.2) ? heldOut : train;
      if (problem.difficulty >= 2) side.add(functions);
      else if (!isHeldOut(problem, 0.2)) trainedFunctions.add(functions);
    }
    expect([...heldOut].filter((composition) => train.has(composition))).toEqual([]);
    expect(heldOut.size).toBeGreaterThan(20);
    expect(trainedFunctions.size).toBe(8);
  });
});
