// ReLIFT in real RL steps on the embedded ladder-cold checkpoint (workers 1): the problems whose whole
// group failed (and only those) enter the buffer with their worked solutions; when the buffer fills, one
// SFT update runs on its first sftDataSize items with the backend's cross_entropy loss, weight 1/N on
// exactly the demonstration tokens (found by their real token ids; the prompt weighted 0), its own
// learning rate and gradient clip, and a loss equal to the mean NLL of those tokens measured by an
// independent forward pass; the buffer drains. Also: config-time refusals and the state round trip.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfigFile } from '../../../core/config.ts';
import { ConfigError, UnknownNameError } from '../../../core/errors.ts';
import type { Datum, LossKind, OptimOptions, PolicyBackend } from '../../../core/policy.ts';
import { additionProblem } from '../../../tasks/addition.ts';
import { promptTokens } from '../../../tasks/format.ts';
import { rlConfigSchema } from '../../rl/config.ts';
import type { RlContext } from '../../rl/context.ts';
import type { SampledGroup } from '../../rl/rollout.ts';
import { buildContext, drawPool, validateRlConfig } from '../../rl/setup.ts';
import { rlStep } from '../../rl/step.ts';
import { reliftOf } from './component.ts';
import { createRelift, Relift, solvedNone, validateRelift } from './relift.ts';
import { reliftSchema, resolveReliftOptions } from './relift-options.ts';

const config = (relift: object, extra: object = {}) =>
  rlConfigSchema.parse({
    seed: 5,
    init: { checkpoint: 'examples/checkpoints/ladder-cold' },
    tasks: [{ task: 'addition', difficulties: [7] }],
    poolSize: 3,
    rollout: { groupSize: 3, maxTokens: 80 },
    algorithm: { relift: { enabled: true, ...relift } },
    train: { steps: 2, batchSize: 3, learningRate: 1e-4, gradClip: 0.5 },
    policy: { workers: 1 },
    ...extra,
  });

interface Call {
  loss: LossKind;
  data: Datum[];
  /** The mean NLL over weighted positions, from a forward pass just before this call (same weights). */
  forwardNll: number;
  result: number;
  entropies?: number[][];
}

/** Records every forwardBackward (with an independent forward first) and every optimStep; the real backend runs. */
function record(policy: PolicyBackend): { calls: Call[]; optim: OptimOptions[] } {
  const calls: Call[] = [];
  const optim: OptimOptions[] = [];
  const forwardBackward = policy.forwardBackward.bind(policy);
  const optimStep = policy.optimStep.bind(policy);
  policy.forwardBackward = async (data, loss) => {
    const logprobs = await policy.forward(data.map((datum) => datum.tokens));
    let nll = 0;
    let weighted = 0;
    data.forEach((datum, d) => {
      datum.weights.forEach((w, t) => {
        if (w === 0) return;
        nll -= logprobs[d][t];
        weighted++;
      });
    });
    const result = await forwardBackward(data, loss);
    calls.push({
      loss,
      data,
      forwardNll: nll / Math.max(1, weighted),
      result: result.loss,
      ...(result.entropies && { entropies: result.entropies }),
    });
    return result;
  };
  policy.optimStep = async (options) => {
    optim.push(options);
    return optimStep(options);
  };
  return { calls, optim };
}

const ids = (report: Awaited<ReturnType<typeof rlStep>>) =>
  report.groups
    .filter((group) => group.rewards.every((reward) => reward === 0))
    .map((group) => group.attempt.problem.id);

describe('relift in real RL steps', () => {
  it('only the groups without a success enter the buffer, one item each, with their worked solutions', async () => {
    // 4, 6 and 7 digits: groups with every sample right, some right, none right (seed 5).
    const ctx = await buildContext(
      config(
        { sftDataSize: 100 },
        {
          tasks: [{ task: 'addition', difficulties: [4, 6, 7] }],
          poolSize: 6,
          train: { steps: 1, batchSize: 6, learningRate: 1e-4 },
        },
      ),
    );
    try {
      const report = await rlStep(ctx, 1, 1e-4);
      const failed = ids(report);
      expect(failed.length).toBeGreaterThan(0);
      const partial = report.groups.filter(
        (group) => group.rewards.some((r) => r > 0) && group.rewards.some((r) => r === 0),
      );
      expect(partial.length).toBeGreaterThan(0);
      expect(report.groups.some((group) => group.rewards.every((r) => r > 0))).toBe(true);
      const items = reliftOf(ctx)!.buffer.state().items;
      expect(items.map((item) => item.problemId)).toEqual(failed);
      for (const item of items) {
        const group = report.groups.find((candidate) => candidate.attempt.problem.id === item.problemId)!;
        expect(item.demonstration).toBe(group.attempt.problem.solution);
        expect(item.step).toBe(1);
      }
      expect(report.metrics['relift/added']).toBe(failed.length);
      expect(report.metrics['relift/buffer_size']).toBe(failed.length);
      expect(report.metrics['relift/sft_steps']).toBe(0);
      expect(report.metrics['relift/sft_loss']).toBeUndefined();
    } finally {
      await ctx.policy.close?.();
    }
  }, 30_000);

  it('a full buffer runs one SFT update on exactly the demonstration tokens, then drains', async () => {
    const ctx = await buildContext(config({ sftDataSize: 4, learningRate: 3e-4 }));
    const { calls, optim } = record(ctx.policy);
    try {
      // Step 1: 3 failures (7 digits), below 4: RL only.
      const first = await rlStep(ctx, 1, 1e-4);
      expect(ids(first)).toHaveLength(3);
      expect(calls.map((call) => call.loss)).toEqual(['linear']);
      expect(first.metrics['relift/buffer_size']).toBe(3);
      expect(first.metrics['relift/sft_loss']).toBeUndefined();
      const olderItems = reliftOf(ctx)!.buffer.state().items;

      // Step 2: 3 more = 6 ≥ 4: the newest 3 (batch order), then the oldest of step 1, are trained.
      const second = await rlStep(ctx, 2, 1e-4);
      const newest = ids(second);
      expect(newest).toHaveLength(3);
      expect(calls.map((call) => call.loss)).toEqual(['linear', 'linear', 'cross_entropy']);
      const sft = calls[2];
      const trained = [...newest, olderItems[0].problemId];
      const pool = new Map(drawPool(ctx.config).map((problem) => [problem.id, problem]));
      const { tokenizer } = ctx.policy;
      let total = 0;
      sft.data.forEach((datum, d) => {
        const problem = pool.get(trained[d])!;
        const prompt = promptTokens(tokenizer, problem);
        const solution = [...tokenizer.encode(problem.solution, 'test'), tokenizer.eos];
        expect(datum.tokens).toEqual([...prompt, ...solution]);
        // weights[t] weighs tokens[t + 1]: zero while the target is a prompt token.
        expect(datum.weights.slice(0, prompt.length - 1).every((w) => w === 0)).toBe(true);
        const demo = datum.weights.slice(prompt.length - 1);
        expect(demo).toHaveLength(solution.length);
        expect(new Set(demo).size).toBe(1);
        total += solution.length;
      });
      expect(sft.data).toHaveLength(4);
      for (const datum of sft.data) expect(datum.weights.at(-1)).toBeCloseTo(1 / total, 15);
      // The loss reported is the token-mean NLL of the demonstration tokens before the SFT step.
      expect(second.metrics['relift/sft_loss']).toBeCloseTo(sft.forwardNll, 4);
      expect(second.metrics['relift/sft_loss']).toBeCloseTo(sft.result, 12);
      expect(second.metrics['relift/sft_tokens']).toBe(total);
      // Its own optimiser step: ReLIFT's lr and clip, after the RL step's (train lr, train clip).
      expect(optim.map((options) => [options.learningRate, options.gradClip])).toEqual([
        [1e-4, 0.5],
        [1e-4, 0.5],
        [3e-4, 1],
      ]);
      expect(second.metrics['relift/added']).toBe(3);
      expect(second.metrics['relift/buffer_size']).toBe(2);
      expect(second.metrics['relift/sft_steps']).toBe(1);
      expect(
        reliftOf(ctx)!
          .buffer.state()
          .items.map((item) => item.problemId),
      ).toEqual(olderItems.slice(1).map((item) => item.problemId));
    } finally {
      await ctx.policy.close?.();
    }
  }, 30_000);

  it('entropyTokens (MIFO): the SFT loss on exactly the top share of demonstration tokens by entropy', async () => {
    const ctx = await buildContext(config({ sftDataSize: 4, entropyTokens: 0.3 }));
    const { calls } = record(ctx.policy);
    try {
      await rlStep(ctx, 1, 1e-4);
      const second = await rlStep(ctx, 2, 1e-4);
      // A zero-weight probe for the entropies (no gradient), then the SFT pass.
      expect(calls.map((call) => call.loss)).toEqual(['linear', 'linear', 'cross_entropy', 'cross_entropy']);
      const [probe, sft] = calls.slice(2);
      expect(probe.data.every((datum) => datum.weights.every((w) => w === 0))).toBe(true);
      const pool = drawPool(ctx.config);
      const demo: { entropy: number; weight: number }[] = [];
      sft.data.forEach((datum, d) => {
        expect(probe.data[d].tokens).toEqual(datum.tokens);
        const prompt = pool
          .map((problem) => promptTokens(ctx.policy.tokenizer, problem))
          .find((tokens) => tokens.every((token, t) => datum.tokens[t] === token))!;
        // weights[t] weighs tokens[t + 1]: the demonstration's predictions start at prompt.length − 1.
        for (let t = prompt.length - 1; t < datum.weights.length; t++) {
          demo.push({ entropy: probe.entropies![d][t], weight: datum.weights[t] });
        }
        expect(datum.weights.slice(0, prompt.length - 1).every((w) => w === 0)).toBe(true);
      });
      const trained = demo.filter((token) => token.weight > 0);
      expect(trained).toHaveLength(Math.ceil(0.3 * demo.length));
      expect(second.metrics['relift/sft_tokens']).toBe(trained.length);
      for (const token of trained) expect(token.weight).toBeCloseTo(1 / trained.length, 15);
      const lowestKept = Math.min(...trained.map((token) => token.entropy));
      const highestLeft = Math.max(
        ...demo.filter((token) => token.weight === 0).map((token) => token.entropy),
      );
      expect(lowestKept).toBeGreaterThanOrEqual(highestLeft);
    } finally {
      await ctx.policy.close?.();
    }
  }, 30_000);

  it('a saved state loaded into a fresh instance gives the identical next SFT batch', async () => {
    const ctx = await buildContext(config({ sftDataSize: 2 }));
    try {
      await rlStep(ctx, 1, 1e-4);
      const relift = reliftOf(ctx)!;
      expect(relift.buffer.size).toBe(1);
      await rlStep(ctx, 2, 1e-4);
      expect(relift.buffer.size).toBe(2);
      const pool = drawPool(ctx.config);
      const fresh = createRelift(ctx.config, { pool, source: 'test' })!;
      fresh.load(JSON.parse(JSON.stringify(relift.state())));
      expect(fresh.state()).toEqual(relift.state());
      const original = relift.buffer.take(2)!;
      const restored = fresh.buffer.take(2)!;
      expect(restored).toEqual(original);
      expect(fresh.sequences(ctx, restored)).toEqual(relift.sequences(ctx, original));
      // A buffered problem missing from the pool is a clear error, not a silent drop.
      const other = createRelift(ctx.config, { pool: pool.slice(1), source: 'test' })!;
      const state = relift.state() as { buffer: { items: { problemId: string }[] } };
      state.buffer.items = [{ ...original[0], problemId: pool[0].id }] as never;
      expect(() => other.load(state)).toThrow(`holds problem ${pool[0].id}, which is not in this run's pool`);
    } finally {
      await ctx.policy.close?.();
    }
  }, 30_000);
});

describe('relift config', () => {
  it('setup refuses a pool without worked solutions, naming the file', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'curricula-relift-')), 'pool.jsonl');
    writeFileSync(file, `${JSON.stringify({ ...additionProblem('4321', '1234'), solution: '' })}\n`);
    const attempt = buildContext(config({}, { pool: { file } }));
    await expect(attempt).rejects.toThrow(ConfigError);
    await expect(attempt).rejects.toThrow(
      `algorithm.relift needs worked solutions as demonstrations, but 1 of 1 problems from pool file ${file} have an empty solution`,
    );
  });

  it('refuses bad options before anything is loaded', () => {
    expect(() => validateRlConfig(config({ sftDataSize: 4, miniBatchSize: 3 }))).toThrow(
      'miniBatchSize 3 must divide sftDataSize 4',
    );
    expect(() => validateRlConfig(config({ demonstrations: { name: 'oracle' } }))).toThrow(UnknownNameError);
    expect(() => config({ entropyCoeff: 0.001 })).toThrow(/entropyCoeff/);
    const base = config({ entropyTokens: 0.2 });
    const remote = { ...base, policy: { ...base.policy, backend: 'tinker' } } as typeof base;
    expect(() => validateRelift(remote)).toThrow(/entropyTokens .*policy.backend embedded only/);
    expect(() => validateRelift(base)).not.toThrow();
    expect(() => config({ entropyTokens: 0 })).toThrow(/entropyTokens/);
    const pool = [additionProblem('1', '2')];
    expect(() =>
      createRelift(config({ demonstrations: { name: 'solutions', options: { k: 1 } } }), {
        pool,
        source: 'x',
      }),
    ).toThrow("source 'solutions' takes no options");
  });

  it('is off by default, and resolves the scaled defaults from the batch size', () => {
    expect(
      createRelift(
        rlConfigSchema.parse({
          tasks: [{ task: 'addition', difficulties: [1] }],
          train: { steps: 1, learningRate: 1e-4 },
        }),
        {
          pool: [],
          source: 'x',
        },
      ),
    ).toBeNull();
    const relift = createRelift(config({}), { pool: [additionProblem('1', '2')], source: 'x' })!;
    expect(relift.options).toMatchObject({
      sftDataSize: 3,
      miniBatchSize: 3,
      epochs: 1,
      learningRate: null,
      gradClip: 1,
      failValue: 0,
    });
  });

  it('examples/ladder-relift.yaml validates and its pool has worked solutions', () => {
    const file = 'examples/ladder-relift.yaml';
    const example = loadConfigFile(rlConfigSchema, file);
    validateRlConfig(example);
    const relift = createRelift(example, { pool: drawPool(example), source: file })!;
    expect(relift.options.sftDataSize).toBe(example.train.batchSize);
  });
});

describe('solvedNone (which groups enter the buffer)', () => {
  /** A group of members with these raw rewards; `expert` marks injected expert traces, `error` a grading failure. */
  const group = (members: { reward: number; expert?: boolean; error?: boolean }[]): SampledGroup =>
    ({
      rollouts: members.map((member) => ({ tokens: [1], expertTokens: member.expert ? 1 : undefined })),
      results: members.map((member) => ({
        reward: member.reward,
        components: {},
        ...(member.error && { error: true }),
      })),
      // Rewards after a KL reward penalty: never read.
      rewards: members.map(() => -0.3),
    }) as unknown as SampledGroup;

  it('every own member at the fail value (raw rewards), expert traces ignored, grading errors excluded', () => {
    expect(solvedNone(group([{ reward: 0 }, { reward: 0 }]), 0)).toBe(true);
    expect(solvedNone(group([{ reward: 0 }, { reward: 1 }]), 0)).toBe(false);
    expect(solvedNone(group([{ reward: 0 }, { reward: 1, expert: true }]), 0)).toBe(true);
    expect(solvedNone(group([{ reward: 1, expert: true }]), 0)).toBe(false);
    expect(solvedNone(group([{ reward: 0 }, { reward: 0, error: true }]), 0)).toBe(false);
    expect(solvedNone(group([{ reward: -0.5 }, { reward: -0.5 }]), -0.5)).toBe(true);
    expect(solvedNone(group([{ reward: -1 }, { reward: -1 }]), 0)).toBe(false);
  });

  it('a demonstration source that throws or answers null costs those problems their place, not the run', async () => {
    const pool = [additionProblem('1', '2'), additionProblem('3', '4')];
    const failedGroup = (index: number) => {
      const failed = group([{ reward: 0 }, { reward: 0 }]);
      failed.attempt = { problem: pool[index], prompt: pool[index].prompt, prefix: '', guided: false };
      return failed;
    };
    const options = resolveReliftOptions(reliftSchema.parse({ enabled: true, sftDataSize: 100 }), 2);
    const noneForFirst = new Relift(
      options,
      {
        name: 'partial',
        demonstrate: async (problems) => problems.map((p, i) => (i === 0 ? null : p.solution)),
      },
      pool,
    );
    const unused = {} as RlContext;
    const metrics = await noneForFirst.afterRl(unused, [failedGroup(0), failedGroup(1)], 1, 1e-4);
    expect(metrics['relift/added']).toBe(1);
    expect(metrics['relift/source_failures']).toBe(1);
    expect(noneForFirst.buffer.state().items.map((item) => item.problemId)).toEqual([pool[1].id]);
    const throwing = new Relift(
      options,
      {
        name: 'throwing',
        demonstrate: async () => {
          throw new Error('teacher timed out');
        },
      },
      pool,
    );
    const failed = await throwing.afterRl(unused, [failedGroup(0), failedGroup(1)], 1, 1e-4);
    expect(failed['relift/added']).toBe(0);
    expect(failed['relift/source_failures']).toBe(2);
    expect(failed['relift/buffer_size']).toBe(0);
  });
});
