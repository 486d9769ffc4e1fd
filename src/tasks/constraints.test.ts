import { describe, expect, it } from 'vitest';
import type { Problem } from '../core/problem.ts';
import { Rng } from '../core/rng.ts';
import {
  type Constraint,
  checkConstraints,
  constraints,
  constraintsCanonicalKey,
  constraintsProblem,
  constraintVocabulary,
  parseConstraintsPrompt,
} from './constraints.ts';
import { sequenceTokens } from './lengths.ts';

/** The prompt 'n=4|has:kiv|not:ral|end:mub' with the witness 'tosu kiv bilu mub'. */
const example = constraintsProblem(
  [
    { kind: 'n', value: 4 },
    { kind: 'has', value: 'kiv' },
    { kind: 'not', value: 'ral' },
    { kind: 'end', value: 'mub' },
  ],
  ['tosu', 'kiv', 'bilu', 'mub'],
);

/** One problem of a single constraint (witness given) for the per-kind rejection table. */
function single(constraint: Constraint, witness: string[]): Problem {
  return constraintsProblem([constraint], witness);
}

/** An independent reading of a constraint on a well-formed answer, by string operations on the text. */
function independentlyHolds(constraint: string, answer: string): boolean {
  const padded = ` ${answer} `;
  const words = answer.split(' ');
  const [kind, word] = constraint.split(':');
  if (constraint.startsWith('n=')) return words.length === Number(constraint.slice(2));
  if (constraint.startsWith('len<=')) return words.every((w) => w.length <= Number(constraint.slice(5)));
  if (constraint === 'sorted') return words.join(' ') === [...words].sort().join(' ');
  if (kind === 'has') return padded.includes(` ${word} `);
  if (kind === 'not') return !padded.includes(` ${word} `);
  if (kind === 'start') return padded.startsWith(` ${word} `);
  if (kind === 'end') return padded.endsWith(` ${word} `);
  if (kind === 'rep') return (padded.match(new RegExp(`(?<= )${word}(?= )`, 'g')) ?? []).length === 2;
  throw new Error(`unknown constraint ${constraint}`);
}

/** Generated problems: `perLevel` at every difficulty, seeded. */
function generated(perLevel: number, seed = 1): Problem[] {
  const rng = new Rng(seed);
  const problems: Problem[] = [];
  for (let level = 1; level <= 5; level++) {
    for (let i = 0; i < perLevel; i++) problems.push(constraints.generate(rng, level));
  }
  return problems;
}

describe('constraints: format and verifier', () => {
  it('writes the prompt, the worked solution and the judge metadata as hand-checked', () => {
    expect(example.prompt).toBe('n=4|has:kiv|not:ral|end:mub\n');
    expect(example.solution).toBe('tosu\nkiv\nbilu\nmub\nA:tosu kiv bilu mub');
    expect(example.answer).toBe('tosu kiv bilu mub');
    expect(example.id).toMatch(/^constraints-4-[0-9a-f]{12}$/);
    expect(example.params).toEqual({ constraints: 4, words: 4 });
    expect(example.metadata).toEqual({
      constraints: [
        { kind: 'n', value: 4 },
        { kind: 'has', value: 'kiv' },
        { kind: 'not', value: 'ral' },
        { kind: 'end', value: 'mub' },
      ],
      checklist: [
        'Does the answer have exactly 4 words?',
        "Does the answer contain the word 'kiv'?",
        "Is the answer free of the word 'ral'?",
        "Is the last word of the answer 'mub'?",
      ],
    });
    expect(constraints.verify(example, example.solution)).toEqual({
      correct: true,
      extracted: example.answer,
    });
  });

  it('accepts any text that meets every constraint, not only the witness', () => {
    expect(constraints.verify(example, 'A:kiv zep cruva mub').correct).toBe(true);
    expect(constraints.verify(example, 'A:kiv kiv kiv mub').correct).toBe(true);
    expect(constraints.verify(example, 'A:ral kiv cruva mub')).toEqual({
      correct: false,
      extracted: 'ral kiv cruva mub',
      reason: "fails 'not:ral': 'ral' is present",
    });
  });

  it.each([
    [{ kind: 'n', value: 3 }, ['kiv', 'ral', 'mub'], 'kiv ral', "fails 'n=3': the answer has 2 words"],
    [{ kind: 'n', value: 2 }, ['kiv', 'ral'], 'kiv', "fails 'n=2': the answer has 1 word"],
    [{ kind: 'has', value: 'zep' }, ['zep', 'ral'], 'kiv ral', "fails 'has:zep': 'zep' is missing"],
    [{ kind: 'not', value: 'zep' }, ['kiv', 'ral'], 'ral zep', "fails 'not:zep': 'zep' is present"],
    [
      { kind: 'start', value: 'tosu' },
      ['tosu', 'ral'],
      'ral tosu',
      "fails 'start:tosu': the first word is 'ral'",
    ],
    [{ kind: 'end', value: 'tosu' }, ['ral', 'tosu'], 'tosu ral', "fails 'end:tosu': the last word is 'ral'"],
    [{ kind: 'len', value: 4 }, ['kiv', 'tosu'], 'kiv samel', "fails 'len<=4': 'samel' has 5 letters"],
    [
      { kind: 'sorted', value: null },
      ['dax', 'kiv', 'kiv'],
      'dax kiv bilu',
      "fails 'sorted': 'kiv' comes before 'bilu'",
    ],
    [
      { kind: 'rep', value: 'kiv' },
      ['kiv', 'ral', 'kiv'],
      'kiv ral mub',
      "fails 'rep:kiv': 'kiv' appears 1 time",
    ],
    [{ kind: 'rep', value: 'kiv' }, ['kiv', 'kiv'], 'kiv kiv kiv', "fails 'rep:kiv': 'kiv' appears 3 times"],
  ] as [Constraint, string[], string, string][])(
    '%o rejects a violating answer with its reason',
    (constraint, witness, wrong, reason) => {
      const problem = single(constraint, witness);
      expect(constraints.verify(problem, problem.solution).correct).toBe(true);
      expect(constraints.verify(problem, `A:${wrong}`)).toEqual({ correct: false, extracted: wrong, reason });
      expect(checkConstraints(problem, `A:${wrong}`)).toEqual([
        { constraint: problem.prompt.trim(), passed: false },
      ]);
    },
  );

  it('names the first failed constraint in prompt order', () => {
    // 'tosu ral' fails n=4 (2 words), has:kiv, not:ral and end:mub: the reason names n=4 only.
    expect(constraints.verify(example, 'A:tosu ral').reason).toBe("fails 'n=4': the answer has 2 words");
    expect(checkConstraints(example, 'A:tosu ral').map((entry) => entry.passed)).toEqual([
      false,
      false,
      false,
      false,
    ]);
    expect(checkConstraints(example, 'A:tosu zep bilu mub').map((entry) => entry.passed)).toEqual([
      true,
      false,
      true,
      true,
    ]);
  });

  it('requires vocabulary words separated by single spaces, and an answer line', () => {
    const reason = (completion: string) => constraints.verify(example, completion).reason;
    expect(reason('A:tosu kiv bilu xyz')).toBe("'xyz' is not a word of the vocabulary");
    expect(reason('A:tosu  kiv bilu mub')).toBe(
      'the answer must be lowercase words separated by single spaces',
    );
    expect(reason('A:Tosu kiv bilu mub')).toBe(
      'the answer must be lowercase words separated by single spaces',
    );
    expect(reason('tosu kiv bilu mub')).toBe('no answer line (A:...) found');
    expect(checkConstraints(example, 'tosu kiv bilu mub').map((entry) => entry.passed)).toEqual([
      false,
      false,
      false,
      false,
    ]);
    expect(constraints.verify({ ...example, prompt: 'bogus\n' }, example.solution).reason).toBe(
      'the prompt is not a constraint list',
    );
  });

  it('refuses to build a problem whose witness breaks a constraint', () => {
    expect(() => constraintsProblem([{ kind: 'not', value: 'kiv' }], ['kiv', 'ral'])).toThrow(
      "witness 'kiv ral' does not satisfy its constraints: 'kiv' is present",
    );
    expect(() => constraintsProblem([{ kind: 'n', value: 2 }], ['kiv', 'qqq'])).toThrow('not a word');
  });
});

describe('constraints: generator', () => {
  const problems = generated(400);

  it('every worked solution verifies, with consistent metadata, at every difficulty', () => {
    for (const problem of problems) {
      const parsed = parseConstraintsPrompt(problem.prompt);
      expect(parsed).toHaveLength(problem.difficulty);
      expect(problem.metadata?.constraints).toEqual(parsed);
      expect(problem.metadata?.checklist).toHaveLength(problem.difficulty);
      expect(constraints.verify(problem, problem.solution)).toEqual({
        correct: true,
        extracted: problem.answer,
      });
      expect(checkConstraints(problem, problem.solution).every((entry) => entry.passed)).toBe(true);
      const texts = problem.prompt.trim().split('|');
      expect(new Set(texts).size).toBe(texts.length);
      for (const kind of ['n=', 'start:', 'end:', 'len<=', 'sorted', 'rep:']) {
        expect(texts.filter((text) => text.startsWith(kind)).length).toBeLessThanOrEqual(1);
      }
      const words = problem.answer.split(' ');
      expect(words.length).toBeGreaterThanOrEqual(2);
      expect(words.length).toBeLessThanOrEqual(6);
    }
  });

  it('draws every kind, both length bounds, and every vocabulary word', () => {
    const seen = new Set(problems.flatMap((problem) => problem.prompt.trim().split('|')));
    const kindsSeen = new Set([...seen].map((text) => text.split(/[:=<]/)[0]));
    expect([...kindsSeen].sort()).toEqual(['end', 'has', 'len', 'n', 'not', 'rep', 'sorted', 'start']);
    expect(seen.has('len<=3') && seen.has('len<=4')).toBe(true);
    const used = new Set(problems.flatMap((problem) => problem.answer.split(' ')));
    expect([...used].sort()).toEqual([...constraintVocabulary].sort());
  });

  it('lists its alphabet exactly: the characters of its prompts and solutions', () => {
    const characters = new Set(problems.flatMap((problem) => [...(problem.prompt + problem.solution)]));
    expect([...characters].sort().join('')).toBe(constraints.alphabet);
  });

  it('checkConstraints agrees with verify and with an independent reading of each constraint', () => {
    const rng = new Rng(4);
    for (const problem of problems) {
      // A random text of 1..7 vocabulary words, biased toward the problem's own words so some pass.
      const own = problem.answer.split(' ');
      const length = rng.int(1, 7);
      const words = Array.from({ length }, () => rng.pick(rng.next() < 0.5 ? own : constraintVocabulary));
      const completion = `${words.join('\n')}\nA:${words.join(' ')}`;
      const checks = checkConstraints(problem, completion);
      expect(checks.map((entry) => entry.constraint)).toEqual(problem.prompt.trim().split('|'));
      for (const entry of checks)
        expect(entry.passed).toBe(independentlyHolds(entry.constraint, words.join(' ')));
      const verdict = constraints.verify(problem, completion);
      expect(verdict.correct).toBe(checks.every((entry) => entry.passed));
      const firstFailed = checks.find((entry) => !entry.passed);
      if (firstFailed) expect(verdict.reason).toMatch(new RegExp(`^fails '${firstFailed.constraint}': `));
    }
  });

  it('fits every sequence within maxSequenceTokens(d) ≤ 128, a bound a hand-built problem attains', () => {
    const rng = new Rng(9);
    for (let level = 1; level <= 5; level++) {
      const bound = constraints.maxSequenceTokens?.(level) ?? 0;
      expect(bound).toBeLessThanOrEqual(128);
      for (let i = 0; i < 3000; i++) {
        const problem = constraints.generate(rng, level);
        expect(sequenceTokens(problem.prompt, problem.solution)).toBeLessThanOrEqual(bound);
      }
    }
    const longest = constraintsProblem(
      [
        { kind: 'start', value: 'samel' },
        { kind: 'has', value: 'virot' },
        { kind: 'not', value: 'yolim' },
        { kind: 'end', value: 'cruva' },
        { kind: 'rep', value: 'nuxer' },
      ],
      ['samel', 'virot', 'nuxer', 'tabec', 'nuxer', 'cruva'],
    );
    expect(sequenceTokens(longest.prompt, longest.solution)).toBe(127);
    expect(constraints.maxSequenceTokens?.(5)).toBe(127);
    expect(constraints.maxSequenceTokens?.(1)).toBe(87);
  });

  it('keys a problem by its constraint set, so reorderings match', () => {
    const reordered = constraintsProblem(
      [
        { kind: 'end', value: 'mub' },
        { kind: 'not', value: 'ral' },
        { kind: 'n', value: 4 },
        { kind: 'has', value: 'kiv' },
      ],
      ['kiv', 'zep', 'cruva', 'mub'],
    );
    expect(reordered.prompt).not.toBe(example.prompt);
    expect(constraintsCanonicalKey(reordered)).toBe(constraintsCanonicalKey(example));
    expect(constraints.canonicalKey?.(example)).toBe('constraints:end:mub|has:kiv|n=4|not:ral');
    const other = constraintsProblem([{ kind: 'n', value: 4 }], ['kiv', 'zep', 'cruva', 'mub']);
    expect(constraintsCanonicalKey(other)).not.toBe(constraintsCanonicalKey(example));
  });

  it('generateFromParams rounds and clamps its knobs', () => {
    const rng = new Rng(2);
    const cases: [Record<string, number>, number, number][] = [
      [{ constraints: 0, words: 1 }, 1, 2],
      [{ constraints: 9, words: 10 }, 5, 6],
      [{ constraints: 2.6, words: 3.4 }, 3, 3],
      [{}, 1, 4],
    ];
    for (const [params, count, words] of cases) {
      for (let i = 0; i < 50; i++) {
        const problem = constraints.generateFromParams?.(rng, params) as Problem;
        expect(problem.params).toEqual({ constraints: count, words });
        expect(problem.answer.split(' ')).toHaveLength(words);
        expect(constraints.verify(problem, problem.solution).correct).toBe(true);
      }
    }
  });

  it('is deterministic by seed and rejects a difficulty outside 1..5', () => {
    expect(generated(20, 5)).toEqual(generated(20, 5));
    expect(generated(20, 6)).not.toEqual(generated(20, 5));
    expect(() => constraints.generate(new Rng(0), 6)).toThrow(
      'difficulty must be an integer in [1, 5], got 6',
    );
    expect(() => constraints.generate(new Rng(0), 0)).toThrow(RangeError);
  });
});
