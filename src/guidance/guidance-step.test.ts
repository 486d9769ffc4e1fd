// Guidance in real RL steps on embedded checkpoints (workers 1). oracle-prefix on demo-cold: the prefix is
// part of the context the policy conditions on, the graded completion is prefix + sampled text, and the
// loss data sent to the backend give the prefix's real token ids weight 0 (only sampled tokens are
// trained on). hints from examples/ladder-hints.yaml on ladder-cold: the hint is in the prompt tokens
// (weight 0). Also: setup refuses a pool file without worked solutions before loading any model.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfigFile } from '../core/config.ts';
import { ConfigError } from '../core/errors.ts';
import type { Datum } from '../core/policy.ts';
import { additionProblem } from '../tasks/addition.ts';
import { promptTokens } from '../tasks/format.ts';
import { rlConfigSchema } from '../training/rl/config.ts';
import { buildContext, drawPool, validateRlConfig } from '../training/rl/setup.ts';
import { rlStep } from '../training/rl/step.ts';
import { guidances } from './index.ts';

const demoCold = 'examples/checkpoints/demo-cold';

const config = (extra: object = {}) =>
  rlConfigSchema.parse({
    seed: 4,
    init: { checkpoint: demoCold },
    tasks: [{ task: 'addition', difficulties: [4] }],
    poolSize: 3,
    guidance: { name: 'oracle-prefix' },
    rollout: { groupSize: 4, maxTokens: 48 },
    train: { steps: 2, batchSize: 3, learningRate: 1e-4 },
    policy: { workers: 1 },
    ...extra,
  });

/** Records every datum the step sends to forwardBackward (the real backend still runs). */
function recordData(policy: { forwardBackward: (data: Datum[], loss: never) => Promise<unknown> }): Datum[] {
  const sent: Datum[] = [];
  const forwardBackward = policy.forwardBackward.bind(policy);
  policy.forwardBackward = (data, loss) => {
    sent.push(...data);
    return forwardBackward(data, loss);
  };
  return sent;
}

describe('guidance in a real RL step', () => {
  it('forces the prefix as context: its real token ids get weight 0, the sampled tokens carry the loss', async () => {
    const runConfig = config();
    const pool = drawPool(runConfig);
    const ctx = await buildContext(runConfig);
    const sent = recordData(ctx.policy as never);
    try {
      // Every pool problem had a zero-success unguided group; the search is at level 4 (a quarter).
      const entry = { level: 4, remembered: false, visits: 0, transferred: false };
      ctx.guidance.load({
        entries: Object.fromEntries(pool.map((problem) => [problem.id, entry])),
        ledger: { zeroSuccess: pool.map((problem) => problem.id), unlocked: [], leakCut: 0, leakDropped: 0 },
      });
      const report = await rlStep(ctx, 1, 1e-4);
      expect(report.metrics['guidance/guided_frac']).toBe(1);
      expect(report.metrics['guidance/strength']).toBeGreaterThan(0.2);
      const { tokenizer } = ctx.policy;
      let prefixTokens = 0;
      for (const group of report.groups) {
        const { attempt } = group;
        // 4-digit solutions are 42 characters: a quarter is 10 ("d+d+c=tu\nd").
        expect(attempt.prefix).toBe(attempt.problem.solution.slice(0, 10));
        const prompt = promptTokens(tokenizer, attempt.problem);
        const prefix = tokenizer.encode(attempt.prefix, 'test');
        expect(prefix).toHaveLength(10);
        expect(group.context).toEqual([...prompt, ...prefix]);
        group.completions.forEach((completion, index) => {
          expect(completion).toBe(attempt.prefix + group.rollouts[index].text);
        });
        for (const rollout of group.rollouts) {
          const datum = sent.find(
            (candidate) => candidate.tokens.join() === [...group.context, ...rollout.tokens].join(),
          );
          if (!datum) continue; // not trained (e.g. an empty completion)
          // weights[t] weighs the log-prob of tokens[t + 1]: the prompt and every prefix token are 0.
          const contextWeights = datum.weights.slice(0, group.context.length - 1);
          expect(contextWeights.every((weight) => weight === 0)).toBe(true);
          expect(datum.tokens.slice(prompt.length, prompt.length + prefix.length)).toEqual(prefix);
          expect(datum.weights).toHaveLength(group.context.length + rollout.tokens.length - 1);
          prefixTokens += prefix.length;
        }
      }
      expect(prefixTokens).toBeGreaterThan(0);
      // Where a group's rewards differ the sampled tokens carry non-zero weights (they are trained).
      const mixed = report.groups.filter((group) => new Set(group.rewards).size > 1);
      expect(mixed.length).toBeGreaterThan(0); // seed 4: rewards 1110 | 0000 | 0110
      for (const group of mixed) {
        const datum = sent.find((candidate) => candidate.tokens.join().startsWith(group.context.join()))!;
        expect(datum.weights.slice(group.context.length - 1).some((weight) => weight !== 0)).toBe(true);
      }
    } finally {
      await ctx.policy.close?.();
    }
  }, 30_000);

  it('hints (examples/ladder-hints.yaml, small): the hint is prompt text, never a trained token', async () => {
    const example = loadConfigFile(rlConfigSchema, 'examples/ladder-hints.yaml');
    const runConfig = rlConfigSchema.parse({
      ...example,
      tasks: [{ task: 'addition', difficulties: [7] }],
      poolSize: 2,
      rollout: { ...example.rollout, groupSize: 2 },
      train: { ...example.train, batchSize: 2 },
      policy: { workers: 1 },
    });
    const pool = drawPool(runConfig);
    const ctx = await buildContext(runConfig);
    const sent = recordData(ctx.policy as never);
    try {
      // Both problems measured at pass rate 0: hard, hinted at p = 0.25 in step 1.
      ctx.guidance.load({
        estimates: Object.fromEntries(pool.map((problem) => [problem.id, 0])),
        hardVisits: {},
        ledger: { zeroSuccess: [], unlocked: [], leakCut: 0, leakDropped: 0 },
      });
      const report = await rlStep(ctx, 1, 1e-4);
      expect(report.metrics['guidance/guided_frac']).toBe(1);
      expect(report.metrics['guidance/hint_p']).toBe(0.25);
      const { tokenizer } = ctx.policy;
      for (const group of report.groups) {
        const { problem, prompt, prefix } = group.attempt;
        const hint = problem.solution.slice(0, Math.floor(0.25 * problem.solution.length));
        expect(prompt).toBe(`${problem.prompt}\n${hint}`);
        expect(prefix).toBe('');
        expect(group.context).toEqual(promptTokens(tokenizer, { ...problem, prompt }));
        for (const rollout of group.rollouts) {
          const datum = sent.find(
            (candidate) => candidate.tokens.join() === [...group.context, ...rollout.tokens].join(),
          );
          if (!datum) continue;
          expect(datum.weights.slice(0, group.context.length - 1).every((weight) => weight === 0)).toBe(true);
        }
      }
      // The step's completions had room: maxTokens is not cut below the longest 7-digit solution + EOS.
      expect(Math.max(...report.groups.map((group) => group.context.length))).toBeLessThanOrEqual(128 - 74);
    } finally {
      await ctx.policy.close?.();
    }
  }, 30_000);

  it('the example configs build their scaffold on the drawn pool', () => {
    for (const [file, name] of [
      ['examples/ladder-hints.yaml', 'hints'],
      ['examples/ladder-oracle-prefix.yaml', 'oracle-prefix'],
    ]) {
      const example = loadConfigFile(rlConfigSchema, file);
      validateRlConfig(example);
      const guidance = guidances.get(example.guidance.name)(example.guidance.options, {
        pool: drawPool(example),
        totalSteps: example.train.steps,
        source: file,
      });
      expect(guidance.name).toBe(name);
    }
  });

  it('setup refuses a pool file without worked solutions, naming the file, before the reward check', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'curricula-guidance-')), 'pool.jsonl');
    const problem = { ...additionProblem('4321', '1234'), solution: '' };
    writeFileSync(file, `${JSON.stringify(problem)}\n`);
    const attempt = buildContext(config({ pool: { file } }));
    await expect(attempt).rejects.toThrow(ConfigError);
    await expect(attempt).rejects.toThrow(
      `guidance 'oracle-prefix' needs worked solutions, but 1 of 1 problems from pool file ${file} have an empty solution (e.g. ${problem.id})`,
    );
  });
});
