import { describe, expect, it } from 'vitest';
import { Rng } from '../core/rng.ts';
import { alignedAddition } from './aligned-addition.ts';
import { alignedAdditionExplain } from './answer-shown.ts';
import { canonicalPartition, isHeldOut } from './held-out-partition.ts';
import { ProblemMix } from './problem-mix.ts';

describe('aligned-addition-explain: the answer shown in the prompt, the trace as the solution', () => {
  it("is aligned-addition's problem with its answer line appended to the prompt", () => {
    const plain = alignedAddition.generate(new Rng(5), 3);
    const shown = alignedAdditionExplain.generate(new Rng(5), 3);
    expect(shown.prompt).toBe(`${plain.prompt}A:${plain.answer}\n`);
    expect(shown.solution).toBe(plain.solution);
    expect(shown.task).toBe('aligned-addition-explain');
    expect(alignedAdditionExplain.verify(shown, shown.solution).correct).toBe(true);
  });

  it("sits on aligned-addition's canonical held-out side, problem by problem", () => {
    const canonical = canonicalPartition(alignedAddition, 'test');
    let heldOut = 0;
    for (let seed = 0; seed < 400; seed++) {
      const level = 1 + (seed % 4);
      const base = canonical.generate(new Rng(seed), level);
      const shown = alignedAdditionExplain.generate(new Rng(seed), level);
      expect(isHeldOut(shown, 0.2)).toBe(isHeldOut(base, 0.2));
      if (isHeldOut(base, 0.2)) heldOut++;
    }
    expect(heldOut).toBeGreaterThan(40);
    // a pretraining pool drawn from it never holds a held-out aligned-addition problem
    const pool = new ProblemMix([{ task: 'aligned-addition-explain', difficulties: [1, 2], weight: 1 }]).pool(
      200,
      new Rng(3),
    );
    expect(pool.every((problem) => !isHeldOut(problem, 0.2))).toBe(true);
  });

  it('refuses the canonical partition (its split is always that one)', () => {
    expect(() =>
      new ProblemMix([
        { task: 'aligned-addition-explain', difficulties: [1], weight: 1, partition: 'canonical' },
      ]).pool(4, new Rng(1)),
    ).toThrow(/no canonical key/);
  });
});
