import { describe, expect, it } from 'vitest';
import type { Problem } from '../core/problem.ts';
import { Rng } from '../core/rng.ts';
import { checkConstraints, constraintsProblem, constraintVocabulary } from './constraints.ts';
import {
  constraintsJudge,
  constraintsJudgeCanonicalKey,
  constraintsJudgeProblem,
  judgeSolution,
} from './constraints-judge.ts';
import { tasks } from './index.ts';
import { sequenceTokens } from './lengths.ts';

/** The constraints prompt 'n=4|has:kiv|not:ral' with the witness 'tosu kiv bilu mub'. */
const base = constraintsProblem(
  [
    { kind: 'n', value: 4 },
    { kind: 'has', value: 'kiv' },
    { kind: 'not', value: 'ral' },
  ],
  ['tosu', 'kiv', 'bilu', 'mub'],
);

/**
 * Judge problems with the constraints problems they grade: the judge draws its constraints problem first
 * from the same seeded stream, so `constraints.generate` on that seed is an independent path to it.
 */
function seeded(perLevel: number): { judge: Problem; graded: Problem }[] {
  const constraintsTask = tasks.get('constraints');
  const pairs: { judge: Problem; graded: Problem }[] = [];
  for (let level = 1; level <= 5; level++) {
    for (let seed = 0; seed < perLevel; seed++) {
      const judge = constraintsJudge.generate(new Rng(seed * 7 + level), level);
      pairs.push({ judge, graded: constraintsTask.generate(new Rng(seed * 7 + level), level) });
    }
  }
  return pairs;
}

describe('constraints-judge: format', () => {
  it('writes a PASS and a FAIL problem as hand-checked', () => {
    const pass = constraintsJudgeProblem(base, 'kiv zep cruva mub');
    expect(pass.prompt).toBe('n=4|has:kiv|not:ral\n>kiv zep cruva mub\n');
    expect(pass.solution).toBe('n=4:y\nhas:kiv:y\nnot:ral:y\nVerdict: PASS\nA:PASS');
    expect(pass.answer).toBe('PASS');
    expect(pass.id).toMatch(/^constraints-judge-3-[0-9a-f]{12}$/);
    expect(pass.metadata).toEqual({
      constraintsPrompt: 'n=4|has:kiv|not:ral\n',
      candidate: 'kiv zep cruva mub',
      truth: [true, true, true],
      verdict: 'PASS',
      wellFormed: true,
    });
    const fail = constraintsJudgeProblem(base, 'tosu kiv ral', 'replace');
    expect(fail.prompt).toBe('n=4|has:kiv|not:ral\n>tosu kiv ral\n');
    expect(fail.solution).toBe('n=4:n\nhas:kiv:y\nnot:ral:n\nVerdict: FAIL\nA:FAIL');
    expect(fail.metadata).toMatchObject({ truth: [false, true, false], verdict: 'FAIL', source: 'replace' });
    for (const problem of [pass, fail]) {
      expect(constraintsJudge.verify(problem, problem.solution)).toEqual({
        correct: true,
        extracted: problem.answer,
      });
    }
    expect(constraintsJudge.verify(fail, 'n=4:y\nVerdict: PASS\nA:PASS').correct).toBe(false);
  });

  it.each([
    ['', [false, false, false]],
    ['tosu  kiv bilu mub', [true, true, true]],
    ['tosu kiv bilu xyz', [true, true, true]],
  ])('answers format:n and FAIL for the ill-formed candidate %o', (candidate, truth) => {
    const problem = constraintsJudgeProblem(base, candidate);
    expect(problem.prompt).toBe(`n=4|has:kiv|not:ral\n>${candidate}\n`);
    expect(problem.solution).toBe('format:n\nVerdict: FAIL\nA:FAIL');
    expect(problem.metadata).toMatchObject({ truth, verdict: 'FAIL', wellFormed: false });
  });

  it('refuses a prompt that is not a constraints prompt, and a multi-line candidate', () => {
    expect(() => constraintsJudgeProblem({ ...base, prompt: 'bogus\n' }, 'kiv')).toThrow('not a constraints');
    expect(() => constraintsJudgeProblem(base, 'kiv\nA:kiv')).toThrow('one line');
  });

  it('no vocabulary word reversed is a vocabulary word (the unknown-word garbage relies on it)', () => {
    const reversed = constraintVocabulary.map((word) => [...word].reverse().join(''));
    expect(reversed.filter((word) => constraintVocabulary.includes(word))).toEqual([]);
  });
});

describe('constraints-judge: generator', () => {
  const pairs = seeded(1000);

  it('grades as the constraints verifier does, line by line as checkConstraints, over 5,000 seeds', () => {
    const constraintsTask = tasks.get('constraints');
    for (const { judge, graded } of pairs) {
      const { candidate, truth, verdict, constraintsPrompt } = judge.metadata as {
        candidate: string;
        truth: boolean[];
        verdict: string;
        constraintsPrompt: string;
      };
      expect(constraintsPrompt).toBe(graded.prompt);
      expect(judge.prompt).toBe(`${graded.prompt}>${candidate}\n`);
      const completion = `A:${candidate}`;
      const expected = constraintsTask.verify(graded, completion).correct ? 'PASS' : 'FAIL';
      expect(verdict, judge.prompt).toBe(expected);
      expect(judge.answer).toBe(expected);
      const checked = checkConstraints(graded, completion);
      expect(truth).toEqual(checked.map((entry) => entry.passed));
      const lines = judge.solution.split('\n');
      expect(lines.slice(-2)).toEqual([`Verdict: ${expected}`, `A:${expected}`]);
      const reasoning = lines.slice(0, -2);
      if (reasoning[0] === 'format:n') {
        expect(reasoning).toHaveLength(1);
        expect(expected).toBe('FAIL');
      } else {
        expect(reasoning).toEqual(checked.map((entry) => `${entry.constraint}:${entry.passed ? 'y' : 'n'}`));
      }
      expect(constraintsJudge.verify(judge, judge.solution)).toEqual({ correct: true, extracted: expected });
    }
  });

  it('draws PASS about half the time at every difficulty, and ~5% garbage', () => {
    for (let level = 1; level <= 5; level++) {
      const atLevel = pairs.filter((pair) => pair.judge.difficulty === level);
      const passShare = atLevel.filter((pair) => pair.judge.answer === 'PASS').length / atLevel.length;
      expect(passShare, `difficulty ${level}`).toBeGreaterThan(0.4);
      expect(passShare, `difficulty ${level}`).toBeLessThan(0.6);
    }
    const garbage = pairs.filter((pair) => pair.judge.solution.startsWith('format:n')).length;
    expect(garbage / pairs.length).toBeGreaterThan(0.03);
    expect(garbage / pairs.length).toBeLessThan(0.07);
  });

  it('stays within maxSequenceTokens at every difficulty, and the bound is attained', () => {
    for (const { judge } of pairs) {
      expect(sequenceTokens(judge.prompt, judge.solution)).toBeLessThanOrEqual(
        constraintsJudge.maxSequenceTokens?.(judge.difficulty) as number,
      );
    }
    expect([1, 2, 3, 4, 5].map((level) => constraintsJudge.maxSequenceTokens?.(level))).toEqual([
      91, 113, 135, 157, 179,
    ]);
    // Six 5-letter words under start, two has, rep and end; one 5-letter word inserted: 7 × 5 + 6 = 41.
    const longest = constraintsProblem(
      [
        { kind: 'start', value: 'samel' },
        { kind: 'has', value: 'virot' },
        { kind: 'has', value: 'nuxer' },
        { kind: 'rep', value: 'tabec' },
        { kind: 'end', value: 'cruva' },
      ],
      ['samel', 'virot', 'nuxer', 'tabec', 'tabec', 'cruva'],
    );
    const judge = constraintsJudgeProblem(longest, 'samel virot nuxer tabec yolim tabec cruva');
    expect(judge.answer).toBe('PASS');
    expect(sequenceTokens(judge.prompt, judge.solution)).toBe(179);
  });

  it('uses exactly its alphabet', () => {
    const used = new Set(pairs.flatMap(({ judge }) => [...judge.prompt, ...judge.solution]));
    expect([...used].sort().join('')).toBe(constraintsJudge.alphabet);
  });

  it('is deterministic by seed, also through generateFromParams', () => {
    expect(constraintsJudge.generate(new Rng(3), 4)).toEqual(constraintsJudge.generate(new Rng(3), 4));
    const params = { constraints: 3, words: 6 };
    const fromParams = constraintsJudge.generateFromParams?.(new Rng(3), params) as Problem;
    expect(constraintsJudge.generateFromParams?.(new Rng(3), params)).toEqual(fromParams);
    expect(fromParams.difficulty).toBe(3);
    expect(fromParams.params).toEqual(params);
    expect(String(fromParams.metadata?.constraintsPrompt ?? '').split('|')).toHaveLength(3);
  });

  it('keys a reordering of the constraints as one problem, and a new candidate as another', () => {
    const reordered = constraintsProblem(
      [
        { kind: 'not', value: 'ral' },
        { kind: 'n', value: 4 },
        { kind: 'has', value: 'kiv' },
      ],
      ['tosu', 'kiv', 'bilu', 'mub'],
    );
    const key = constraintsJudgeCanonicalKey(constraintsJudgeProblem(base, 'kiv zep cruva mub'));
    expect(key).toBe('constraints:has:kiv|n=4|not:ral>kiv zep cruva mub');
    expect(constraintsJudgeCanonicalKey(constraintsJudgeProblem(reordered, 'kiv zep cruva mub'))).toBe(key);
    expect(constraintsJudgeCanonicalKey(constraintsJudgeProblem(base, 'kiv zep cruva'))).not.toBe(key);
  });

  it('builds the solution from the grading alone', () => {
    expect(judgeSolution(['sorted'], { wellFormed: true, truth: [false], verdict: 'FAIL' })).toBe(
      'sorted:n\nVerdict: FAIL\nA:FAIL',
    );
  });
});
