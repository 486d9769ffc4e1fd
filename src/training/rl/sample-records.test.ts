// What a real RL step leaves for the run store (sample-records.ts), on the embedded demo-cold checkpoint
// (workers 1): the advantage the loss used (the configured estimator over the step's rewards), the
// sampler's per-token log-probs with each token's text (char tokenizer: a character each), and the
// guidance of a real scaffold (oracle-prefix: a forced prefix; hints: a hint appended to the prompt),
// written to and read back from a RunStore. recordAdvantages' token-mean path (distillation) on its own.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RunStore } from '../../runs/run-store.ts';
import { rlConfigSchema } from './config.ts';
import type { SampledGroup } from './rollout.ts';
import { recordAdvantages, sampleRecords } from './sample-records.ts';
import { buildContext, drawPool } from './setup.ts';
import { rlStep } from './step.ts';

const config = (guidance: object, extra: object = {}) =>
  rlConfigSchema.parse({
    seed: 4,
    init: { checkpoint: 'examples/checkpoints/demo-cold' },
    tasks: [{ task: 'addition', difficulties: [4] }],
    poolSize: 3,
    guidance,
    rollout: { groupSize: 4, maxTokens: 48 },
    train: { steps: 2, batchSize: 3, learningRate: 1e-4 },
    policy: { workers: 1 },
    ...extra,
  });

describe('sample records of a real step', () => {
  it('oracle-prefix: stores the advantage the loss used, the tokens with their log-probs and the prefix', async () => {
    const runConfig = config({ name: 'oracle-prefix' });
    const pool = drawPool(runConfig);
    const ctx = await buildContext(runConfig);
    try {
      const entry = { level: 4, remembered: false, visits: 0, transferred: false };
      ctx.guidance.load({
        entries: Object.fromEntries(pool.map((problem) => [problem.id, entry])),
        ledger: { zeroSuccess: pool.map((problem) => problem.id), unlocked: [], leakCut: 0, leakDropped: 0 },
      });
      const report = await rlStep(ctx, 1, 1e-4);
      const groups = report.groups;
      // The estimator the step used, recomputed over the same rewards (seed 4: 1110 | 0000 | 0110).
      const expected = ctx.advantage.estimate(
        groups.map((group) => ({
          rewards: group.rewards,
          lengths: group.rollouts.map((rollout) => rollout.tokens.length),
        })),
        ctx.advantageOptions,
      );
      const records = sampleRecords(groups, 100, {
        tokenizer: ctx.policy.tokenizer,
        scaffold: ctx.guidance.name,
      });
      expect(records).toHaveLength(12);
      let k = 0;
      let nonZero = 0;
      groups.forEach((group, g) => {
        group.rollouts.forEach((rollout, i) => {
          const record = records[k++];
          const trained = expected.included[g][i] && rollout.tokens.length > 0;
          expect(record.advantage).toBe(trained ? expected.advantages[g][i] : null);
          if (record.advantage) nonZero++;
          expect(record.advantageKind).toBe('sequence');
          expect(record.logprobs).toEqual(rollout.logprobs);
          expect(record.tokens).toHaveLength(rollout.tokens.length);
          // Char tokenizer: the pieces are the sampled text (EOS decodes to '').
          expect(record.tokens!.join('')).toBe(rollout.text);
          expect(record.completion).toBe(group.attempt.prefix + record.tokens!.join(''));
          expect(record.scaffold).toBe('oracle-prefix');
          expect(record.guided).toBe(true);
          expect(record.expert).toBe(false);
          expect(record.guidance!.added).toEqual([{ kind: 'prefix', text: group.attempt.prefix }]);
          expect(record.guidance!.plainPrompt).toBeUndefined();
        });
      });
      expect(nonZero).toBeGreaterThan(0);

      const dir = join(mkdtempSync(join(tmpdir(), 'records-')), 'run');
      const store = RunStore.create(dir, {});
      store.logSamples(1, records);
      const back = store.samples(1);
      store.close();
      expect(back.map((row) => row.advantage)).toEqual(records.map((record) => record.advantage));
      expect(back[0].tokens).toEqual(records[0].tokens);
      for (const [t, value] of back[0].logprobs!.entries()) {
        expect(value).toBeCloseTo(records[0].logprobs![t], 5);
      }
    } finally {
      await ctx.policy.close?.();
    }
  }, 60_000);

  it('hints: the hint is stored apart from the plain prompt', async () => {
    const runConfig = config({ name: 'hints' });
    const pool = drawPool(runConfig);
    const ctx = await buildContext(runConfig);
    try {
      ctx.guidance.load({
        estimates: Object.fromEntries(pool.map((problem) => [problem.id, 0])),
        hardVisits: {},
        ledger: { zeroSuccess: [], unlocked: [], leakCut: 0, leakDropped: 0 },
      });
      const report = await rlStep(ctx, 1, 1e-4);
      const records = sampleRecords(report.groups, 4, { tokenizer: ctx.policy.tokenizer, scaffold: 'hints' });
      expect(records).toHaveLength(4);
      const { problem, prompt } = report.groups[0].attempt;
      for (const record of records) {
        expect(record.prompt).toBe(prompt);
        expect(record.guided).toBe(true);
        expect(record.guidance!.plainPrompt).toBe(problem.prompt);
        const [added] = record.guidance!.added;
        expect(added.kind).toBe('prompt');
        expect(added.text.startsWith('\n\n## Hint.')).toBe(true);
        expect(problem.prompt + added.text).toBe(prompt);
      }
    } finally {
      await ctx.policy.close?.();
    }
  }, 60_000);

  it('off-policy-prefix: the expert trace member is flagged, with its expert token count', async () => {
    const ctx = await buildContext(
      config(
        { name: 'off-policy-prefix', options: { schedule: 'constant', from: 0.5 } },
        { algorithm: { advantage: { name: 'dr-grpo' } } },
      ),
    );
    try {
      const report = await rlStep(ctx, 1, 1e-4);
      const records = sampleRecords(report.groups, 100, { tokenizer: ctx.policy.tokenizer, scaffold: 'x' });
      const rollouts = report.groups.flatMap((group) => group.rollouts);
      const experts = records.filter((record) => record.expert);
      expect(experts).toHaveLength(report.groups.length); // one trace per group, the last member
      records.forEach((record, k) => {
        const expertTokens = rollouts[k].expertTokens;
        expect(record.expert).toBe(expertTokens !== undefined && expertTokens > 0);
        expect(record.guidance!.expertTokens).toBe(expertTokens);
        if (record.expert) expect(record.guided).toBe(true);
      });
    } finally {
      await ctx.policy.close?.();
    }
  }, 60_000);

  it('privileged-hint (ladder-cold): token-mean advantages and the scorer-only hint', async () => {
    const ctx = await buildContext(
      rlConfigSchema.parse({
        seed: 5,
        init: { checkpoint: 'examples/checkpoints/ladder-cold' },
        tasks: [{ task: 'addition', difficulties: [7] }],
        poolSize: 3,
        guidance: { name: 'privileged-hint' },
        rollout: { groupSize: 3, maxTokens: 96 },
        algorithm: {
          advantage: { name: 'dr-grpo' },
          loss: { name: 'importance-sampling', options: { aggregation: 'token-mean' } },
        },
        train: { steps: 2, batchSize: 3, learningRate: 1e-4 },
        policy: { workers: 1 },
      }),
    );
    try {
      const report = await rlStep(ctx, 1, 1e-4);
      const records = sampleRecords(report.groups, 100, { tokenizer: ctx.policy.tokenizer, scaffold: 'p' });
      expect(records).toHaveLength(9);
      const attempts = report.groups.flatMap((group) => group.rollouts.map(() => group.attempt));
      records.forEach((record, k) => {
        expect(record.advantageKind).toBe('token-mean');
        expect(Number.isFinite(record.advantage)).toBe(true);
        expect(record.guidance!.added).toContainEqual({
          kind: 'privileged',
          text: attempts[k].privilegedContext,
        });
      });
      // Per-token (teacher) terms differ across completions: not the group's scalar advantage.
      expect(new Set(records.map((record) => record.advantage)).size).toBeGreaterThan(3);
    } finally {
      await ctx.policy.close?.();
    }
  }, 60_000);

  it('a retry member (as retry-round.ts merges it) keeps its retry prompt and flag', async () => {
    const ctx = await buildContext(config({ name: 'identity' }));
    try {
      const [group] = (await rlStep(ctx, 1, 1e-4)).groups;
      const plain = group.attempt.problem.prompt;
      group.rollouts[1] = { ...group.rollouts[1], sampledPrompt: `${plain}wrong: 7\n`, retried: true };
      const [first, second] = sampleRecords([group], 2, {
        tokenizer: ctx.policy.tokenizer,
        scaffold: 'retry',
      });
      expect(first).toMatchObject({ guided: false, retry: false, guidance: { added: [] } });
      expect(second).toMatchObject({
        guided: true,
        retry: true,
        expert: false,
        guidance: { added: [{ kind: 'retry-prompt', text: 'wrong: 7\n' }] },
      });
    } finally {
      await ctx.policy.close?.();
    }
  }, 60_000);

  it('averages per-token advantages (distillation) and leaves untrained samples null', () => {
    const rollout = (tokens: number[]) => ({
      tokens,
      text: '',
      logprobs: [],
      samplingLogprobs: [],
      stopReason: 'eos',
    });
    const groups = [{ rollouts: [rollout([1, 2]), rollout([3]), rollout([])] }] as unknown as SampledGroup[];
    recordAdvantages(groups, { advantages: [[0.5, -0.5, 0]], included: [[true, true, true]] }, [
      [[1, 2], undefined, undefined],
    ]);
    expect(groups[0].advantages).toEqual([1.5, -0.5, null]);
    expect(groups[0].advantageKind).toBe('token-mean');
    recordAdvantages(groups, { advantages: [[0.5, -0.5, 0]], included: [[false, true, true]] });
    expect(groups[0].advantages).toEqual([null, -0.5, null]);
    expect(groups[0].advantageKind).toBe('sequence');
    // A multi-turn member (per-turn credit): the mean is over the trained tokens, not the tool output.
    const episode = [
      { rollouts: [{ ...rollout([1, 2, 3, 4]), lossMask: [1, 0, 0, 1] }] },
    ] as unknown as SampledGroup[];
    recordAdvantages(episode, { advantages: [[0]], included: [[true]] }, [[[2, 0, 0, 4]]]);
    expect(episode[0].advantages).toEqual([3]);
  });
});
