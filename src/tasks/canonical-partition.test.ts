// Held-out splits by canonical key (issue 28 item 3): under the default prompt partition, 1-digit
// addition puts some problems' swapped twins (a+b vs b+a) on the other side of the split; with
// `partition: canonical` no held-out problem has a training twin. The default is unchanged.
import { describe, expect, it } from 'vitest';
import { runCli } from '../../test/helpers.ts';
import { Rng } from '../core/rng.ts';
import { additionCanonicalKey } from './addition.ts';
import { isHeldOut } from './generate-set.ts';
import { partitionPoint } from './held-out-partition.ts';
import { entryTask, heldOutFraction, heldOutProblems, type MixEntry, ProblemMix } from './problem-mix.ts';

/** Held-out problems of the entry whose canonical twin is in a training pool of the same mix. */
function twinsAcross(entry: MixEntry): { heldOut: number; withTwin: number } {
  const heldOut = heldOutProblems([entry], 100, 3);
  const pool = new ProblemMix([entry]).pool(200, new Rng(5));
  const trained = new Set(pool.map(additionCanonicalKey));
  const withTwin = heldOut.filter((problem) => trained.has(additionCanonicalKey(problem))).length;
  return { heldOut: heldOut.length, withTwin };
}

describe('canonical held-out partition', () => {
  it('the prompt partition lets swapped twins cross; the canonical one does not', () => {
    const prompt = twinsAcross({ task: 'addition', difficulties: [1], weight: 1 });
    expect(prompt.heldOut).toBeGreaterThan(10);
    expect(prompt.withTwin).toBeGreaterThan(0);
    const canonical = twinsAcross({ task: 'addition', difficulties: [1], weight: 1, partition: 'canonical' });
    expect(canonical.heldOut).toBeGreaterThan(10);
    expect(canonical.withTwin).toBe(0);
  });

  it('a problem and its swapped twin fall on one side (their prompts alone would not)', () => {
    const task = entryTask({ task: 'addition', partition: 'canonical' });
    const rng = new Rng(11);
    let promptSidesDiffer = 0;
    for (let i = 0; i < 200; i++) {
      const problem = task.generate(rng, 3);
      const [a, b] = problem.prompt.trim().split('+');
      const swapped = { ...problem, prompt: `${b}+${a}` };
      expect(problem.metadata?.partitionPoint).toBe(
        partitionPoint('addition', additionCanonicalKey(swapped)),
      );
      expect(isHeldOut(problem, heldOutFraction)).toBe(
        (problem.metadata?.partitionPoint as number) < heldOutFraction,
      );
      const side = (prompt: string) => partitionPoint('addition', prompt) < heldOutFraction;
      if (side(problem.prompt) !== side(swapped.prompt)) promptSidesDiffer++;
    }
    expect(promptSidesDiffer).toBeGreaterThan(0);
  });

  it('without partition nothing changes; a task without a canonical key is refused', () => {
    const plain = entryTask({ task: 'addition' });
    expect(plain.generate(new Rng(1), 2).metadata?.partitionPoint).toBeUndefined();
    expect(() => entryTask({ task: 'modular-chain', partition: 'canonical' })).toThrow(
      /has no canonical key/,
    );
  });
});

describe('curricula eval --partition', () => {
  it('goes with --tasks only, and takes prompt or canonical', () => {
    const alone = runCli([
      'eval',
      '--checkpoint',
      'examples/checkpoints/demo-cold',
      '--partition',
      'canonical',
    ]);
    expect(alone.status).toBe(2);
    expect(alone.stderr).toMatch(/--partition goes with --tasks/);
    const wrong = runCli([
      'eval',
      '--checkpoint',
      'examples/checkpoints/demo-cold',
      '--tasks',
      'addition:1',
      '--partition',
      'sorted',
    ]);
    expect(wrong.status).not.toBe(0);
    expect(wrong.stderr).toMatch(/Allowed choices are prompt, canonical/);
  });
});
