// information-gain (RLP) against the real demo-cold checkpoint: the reward equals a hand-computed
// difference of the model's own log-probs of the continuation with and without the thought.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../core/errors.ts';
import type { PolicyBackend } from '../core/policy.ts';
import { Rng } from '../core/rng.ts';
import { EmbeddedBackend } from '../policy/embedded-backend.ts';
import { createTextCorpusTask } from '../tasks/text-corpus.ts';
import { rewards } from './index.ts';
import { thoughtOf } from './information-gain.ts';

let demo: PolicyBackend;
beforeAll(async () => {
  demo = await EmbeddedBackend.load('examples/checkpoints/demo-cold');
});
afterAll(async () => {
  await demo.close?.();
});

/** Σ log p(answer chars | context) by hand: one forward row, summed over the answer's positions. */
async function logpOfAnswer(context: string, answer: string): Promise<number> {
  const t = demo.tokenizer;
  const head = [t.bos, ...t.encode(context)];
  const tail = t.encode(answer);
  const [row] = await demo.forward([[...head, ...tail]]);
  let sum = 0;
  for (let i = 0; i < tail.length; i++) sum += row[head.length + i - 1];
  return sum;
}

describe('information-gain (RLP) on demo-cold', () => {
  it('equals log p(x | prefix, thought) − log p(x | prefix) from the policy’s own forward', async () => {
    const task = createTextCorpusTask({});
    const reward = rewards.get('information-gain')({}, { policy: demo });
    const mean = rewards.get('information-gain')({ aggregate: 'mean' }, { policy: demo });
    for (const [seed, level] of [
      [1, 1],
      [2, 2],
      [3, 2],
    ]) {
      const problem = task.generate(new Rng(seed), level);
      const completions = ['5+6+1=12\nA:guess', 'a thought\nanother line', 'A:no thought', ''];
      const group = completions;
      const results = await reward.score(completions.map((completion) => ({ problem, completion, group })));
      const means = await mean.score(completions.map((completion) => ({ problem, completion, group })));
      const without = await logpOfAnswer(`${problem.prompt}A:`, problem.answer);
      const expected = [
        (await logpOfAnswer(`${problem.prompt}5+6+1=12\nA:`, problem.answer)) - without,
        (await logpOfAnswer(`${problem.prompt}a thought\nanother line\nA:`, problem.answer)) - without,
        0,
        0,
      ];
      results.forEach((result, i) => {
        expect(result.reward).toBeCloseTo(expected[i], 4);
        expect(result.components.logp_without_thought).toBeCloseTo(without, 4);
        expect(means[i].reward).toBeCloseTo(expected[i] / problem.answer.length, 4);
      });
      expect(Math.abs(expected[0]) + Math.abs(expected[1])).toBeGreaterThan(1e-3);
    }
  }, 60_000);

  it('reads the thought before the first A: line, and needs the policy', () => {
    expect(thoughtOf('one\ntwo\nA:x\nmore')).toBe('one\ntwo');
    expect(thoughtOf('A:x')).toBe('');
    expect(thoughtOf('just text\n\n')).toBe('just text');
    expect(() => rewards.get('information-gain')({})).toThrow(ConfigError);
  });
});
