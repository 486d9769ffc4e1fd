// A generator round against the real demo-cold student (workers 1): a scripted generator writes a fixed
// list of statements (garbage, a held-out variant, out-of-grammar, duplicates, valid sums), and the real
// student measures the screened ones. Every proposal ends under one outcome; the admitted ones join the
// pool, which the run's selector then draws from, and the pool's state restores exactly.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Rng } from '../core/rng.ts';
import { addition, additionProblem } from '../tasks/addition.ts';
import { isHeldOut } from '../tasks/generate-set.ts';
import { heldOutFraction, heldOutProblems } from '../tasks/problem-mix.ts';
import { selfPlayOf } from '../training/components/self-play.ts';
import { rlConfigSchema } from '../training/rl/config.ts';
import type { RlContext } from '../training/rl/context.ts';
import { buildContext } from '../training/rl/setup.ts';
import { GeneratedPool } from './pool.ts';
import { selfPlayRound } from './round.ts';

let ctx: RlContext;
const tasks = [{ task: 'addition', difficulties: [2], weight: 1 }];

beforeAll(async () => {
  ctx = await buildContext(
    rlConfigSchema.parse({
      seed: 2,
      init: { checkpoint: 'examples/checkpoints/demo-cold' },
      tasks,
      poolSize: 6,
      train: { steps: 1, batchSize: 4, learningRate: 1e-4 },
      eval: { problemsPerDifficulty: 4 },
      policy: { workers: 1 },
      selfPlay: { proposals: 10, admit: { samples: 4, minPass: 0, maxPass: 1 } },
    }),
  );
}, 60_000);
afterAll(async () => ctx?.policy.close?.());

/** A generator that writes `script` (one statement per proposal), using the student's tokenizer. */
function scripted(script: string[]) {
  return {
    tokenizer: ctx.policy.tokenizer,
    contextLength: ctx.policy.contextLength,
    sample: async (prompts: number[][]) =>
      prompts.map((_, index) => [
        { text: script[index], tokens: [], logprobs: [], samplingLogprobs: [], stopReason: 'eos' as const },
      ]),
  };
}

/** Valid 2-digit sums outside the held-out partition. */
function trainingSums(count: number): string[] {
  const found: string[] = [];
  for (let a = 11; found.length < count; a++) {
    if (!isHeldOut(additionProblem(String(a), '21'), heldOutFraction)) found.push(`${a}+21`);
  }
  return found;
}

/** A swapped or zero-padded variant of `sum` that is itself outside the held-out partition. */
function variantOutsideHeldOut(sum: string): string {
  const [a, b] = sum.split('+');
  const variant = [`${b}+${a}`, `0${a}+${b}`, `${b}+00${a}`, `00${b}+0${a}`].find((text) => {
    const parsed = addition.parseProblem!(text);
    return parsed.ok && !isHeldOut(parsed.problem, heldOutFraction);
  });
  if (variant === undefined) throw new Error(`fixture: every variant of ${sum} is held out`);
  return variant;
}

describe('selfPlayRound', () => {
  it('sorts every proposal into one outcome; admitted ones join the pool and the selector draws them', async () => {
    const heldOut = heldOutProblems(tasks, 4, 2)[0];
    const [a, b] = heldOut.prompt.trim().split('+');
    const valid = trainingSums(3);
    const script = [
      'garbage',
      '8+7+0=15\nA:15',
      `${b}+${a}`, // swapped held-out problem
      '1234567890123+1', // 13 digits
      valid[0],
      valid[1],
      valid[0], // duplicate in the round
      variantOutsideHeldOut(valid[1]), // swapped or zero-padded duplicate
      valid[2],
      '',
    ];
    const selfPlay = selfPlayOf(ctx)!;
    const { metrics, groups } = await selfPlayRound(
      selfPlay,
      ctx.policy,
      new Rng(1),
      1,
      { temperature: 1, maxTokens: 48 },
      scripted(script),
    );
    expect(metrics).toMatchObject({
      'selfplay/proposed': 10,
      'selfplay/rejected/unparsable': 3,
      'selfplay/rejected/held-out': 1,
      'selfplay/rejected/out-of-grammar': 1,
      'selfplay/rejected/duplicate': 2,
      'selfplay/admitted': 3, // band [0, 1]: every screened problem is admitted
      'selfplay/pool_size': 3,
      'selfplay/round_screened': 3,
    });
    // Each proposal's generator reward lands on its own statement: only the admitted ones earn > 0.
    expect(groups.map((group) => group.rewards[0] > 0)).toEqual(
      script.map((_, index) => [4, 5, 8].includes(index)),
    );
    const pool = selfPlay.pool;
    expect(pool.problems().map((problem) => problem.prompt.trim())).toEqual(valid);
    for (const problem of pool.problems())
      expect(addition.verify(problem, problem.solution).correct).toBe(true);
    // The run's selector now draws generated problems beside the fixed pool (share 3 / (6 + 3)).
    const drawn = ctx.selector.select(200, new Rng(4));
    const generated = drawn.filter((problem) => valid.includes(problem.prompt.trim())).length;
    expect(generated).toBeGreaterThan(30);
    expect(generated).toBeLessThan(110);
    // Resume: the JSON state rebuilds the same pool.
    const restored = GeneratedPool.restore(pool.limit, JSON.parse(JSON.stringify(pool.state())));
    expect(restored.state()).toEqual(pool.state());
  }, 60_000);

  it('a band the student cannot meet admits nothing and pays the generator nothing', async () => {
    const selfPlay = { ...selfPlayOf(ctx)!, pool: new GeneratedPool(8) };
    selfPlay.config = { ...selfPlay.config, admit: { samples: 4, minPass: 2, maxPass: 2 } };
    const { metrics } = await selfPlayRound(
      selfPlay,
      ctx.policy,
      new Rng(1),
      1,
      { temperature: 1, maxTokens: 48 },
      scripted(trainingSums(10)),
    );
    expect(metrics['selfplay/admitted']).toBe(0);
    expect(metrics['selfplay/rejected/too-hard']).toBe(10);
    expect(metrics['selfplay/generator_reward']).toBe(0);
  }, 60_000);
});
