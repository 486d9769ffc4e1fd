// The generator prompt: `examples` pool prompts that share one difficulty (so the writer is asked for a
// problem of one level, the write-problems format), every level of the pool gets asked for, and a level
// with too few problems falls back to the whole pool.
import { describe, expect, it } from 'vitest';
import { Rng } from '../core/rng.ts';
import { addition } from '../tasks/addition.ts';
import { generatorPrompt } from './round.ts';

const rng = new Rng(4);
const pool = [2, 2, 2, 2, 5, 5, 5, 5, 5, 7].map((level) => addition.generate(rng, level));
const entry = { task: addition, examples: pool, heldOut: new Set<string>() };
const levelsOf = (prompt: string) =>
  prompt
    .split('\n')
    .filter((line) => line.length > 0)
    .map((line) => {
      const parsed = addition.parseProblem?.(line);
      return parsed?.ok ? parsed.problem.difficulty : -1;
    });

describe('generatorPrompt', () => {
  it('shows examples of one difficulty, each level in proportion to the pool', () => {
    const seen = new Map<number, number>();
    const draw = new Rng(9);
    for (let round = 0; round < 300; round++) {
      const levels = levelsOf(generatorPrompt(entry, 3, draw));
      expect(levels).toHaveLength(3);
      if (levels.every((level) => level === levels[0])) seen.set(levels[0], (seen.get(levels[0]) ?? 0) + 1);
      else seen.set(-1, (seen.get(-1) ?? 0) + 1);
    }
    // Level 7 has one problem (< 3): its draws (about 1 in 10) fall back to mixed examples from the pool.
    expect(seen.get(2)).toBeGreaterThan(90);
    expect(seen.get(5)).toBeGreaterThan(120);
    expect(seen.get(-1) ?? 0).toBeGreaterThan(10);
    expect(seen.get(-1) ?? 0).toBeLessThan(60);
  });

  it('never repeats an example within a prompt, and shows the whole pool when it is smaller', () => {
    const draw = new Rng(2);
    for (let round = 0; round < 50; round++) {
      const lines = generatorPrompt(entry, 4, draw).split('\n').filter(Boolean);
      expect(new Set(lines).size).toBe(lines.length);
    }
    expect(
      generatorPrompt({ ...entry, examples: pool.slice(0, 2) }, 3, draw)
        .split('\n')
        .filter(Boolean),
    ).toHaveLength(2);
    expect(generatorPrompt({ ...entry, examples: [] }, 3, draw)).toBe('');
  });
});
