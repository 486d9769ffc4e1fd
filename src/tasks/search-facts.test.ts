// search-facts' worlds: seeded, fresh per problem, split by answer name, and of the declared lengths.
// (Its traces against the real search tool: src/environments/search-traces.test.ts.)
import { describe, expect, it } from 'vitest';
import { Rng } from '../core/rng.ts';
import { isHeldOut } from './held-out-partition.ts';
import { maxSequenceLength } from './lengths.ts';
import { searchFacts } from './search-facts.ts';

const documentsOf = (problem: ReturnType<typeof searchFacts.generate>) =>
  problem.metadata?.documents as { id: string; title: string; text: string }[];

describe('search-facts', () => {
  it('is deterministic per seed and different across seeds', () => {
    const draw = (seed: number) => {
      const rng = new Rng(seed);
      return [1, 2, 3].map((level) => searchFacts.generate(rng, level));
    };
    expect(draw(4)).toEqual(draw(4));
    expect(draw(4).map((p) => p.prompt)).not.toEqual(draw(5).map((p) => p.prompt));
  });

  it('writes the worked example of its header', () => {
    const problem = searchFacts.generate(new Rng(1), 2);
    const [first, second] = problem.solution.split('\n');
    expect(first).toMatch(
      /^<search>[A-Z][a-z]{3}<\/search><out>([A-Z][a-z]{3}): \1 [a-z]+ [a-z]+ [A-Z][a-z]{3}<\/out>$/,
    );
    expect(second).toMatch(/^<search>[A-Z][a-z]{3}<\/search><out>/);
    expect(problem.solution.endsWith(`\nA:${problem.answer}`)).toBe(true);
    expect(problem.prompt).toMatch(/^[a-z]+ of [a-z]+ of [A-Z][a-z]{3}\?\n$/);
    expect(documentsOf(problem)).toHaveLength(2 + 2);
  });

  it('never gives a held-out answer name to a training problem of the same seed', () => {
    // 900 problems of seed 11 at every level, held-out fraction 0.2: the answer names of the held-out
    // problems and of the training ones are disjoint sets, and no held-out answer fact (the text of the
    // document naming the answer) occurs among the training problems' documents.
    const rng = new Rng(11);
    const problems = Array.from({ length: 900 }, (_, i) => searchFacts.generate(rng, 1 + (i % 3)));
    const heldOut = problems.filter((problem) => isHeldOut(problem, 0.2));
    const training = problems.filter((problem) => !isHeldOut(problem, 0.2));
    expect(heldOut.length).toBeGreaterThan(120);
    const trainingAnswers = new Set(training.map((problem) => problem.answer));
    expect(heldOut.filter((problem) => trainingAnswers.has(problem.answer))).toEqual([]);
    const trainingTexts = new Set(training.flatMap((problem) => documentsOf(problem).map((d) => d.text)));
    const heldOutFacts = heldOut.flatMap((problem) =>
      documentsOf(problem).filter((d) => d.text.endsWith(` ${problem.answer}`)),
    );
    expect(heldOutFacts.length).toBeGreaterThanOrEqual(heldOut.length);
    expect(heldOutFacts.filter((d) => trainingTexts.has(d.text))).toEqual([]);
  });

  it('attains its declared lengths and grades its own solutions', () => {
    const rng = new Rng(2);
    for (let level = 1; level <= 3; level++) {
      let longest = 0;
      for (let i = 0; i < 400; i++) {
        const problem = searchFacts.generate(rng, level);
        longest = Math.max(longest, problem.prompt.length + problem.solution.length + 2);
        expect(searchFacts.verify(problem, problem.solution).correct).toBe(true);
        // The answer must be written: the last search output alone is not an answer line.
        expect(searchFacts.verify(problem, problem.solution.replace(/\nA:.*$/, '')).correct).toBe(false);
      }
      expect(longest).toBe(maxSequenceLength(searchFacts, level));
    }
    expect(maxSequenceLength(searchFacts, 1)).toBeLessThanOrEqual(128);
    expect(maxSequenceLength(searchFacts, 3)).toBeLessThanOrEqual(256);
  });

  it('takes hops and distractors apart (clamped)', () => {
    const rng = new Rng(3);
    const problem = searchFacts.generateFromParams!(rng, { hops: 2, distractors: 5 });
    expect(problem.difficulty).toBe(2);
    expect(documentsOf(problem)).toHaveLength(2 + 5);
    const clamped = searchFacts.generateFromParams!(rng, { hops: 9, distractors: -1 });
    expect(clamped.params).toEqual({ hops: 3, distractors: 0 });
    expect(documentsOf(clamped)).toHaveLength(3);
  });
});
