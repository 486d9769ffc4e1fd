// off-policy-prefix in real RL steps on demo-cold (workers 1): each group holds G − 1 sampled members and
// one expert trace (the worked solution's first half, continued by the policy; or the whole solution +
// EOS), and the weights sent to the backend put the expert tokens — found by their real token ids —
// under LUFFY's −A·γ·π/(π+γ)² and the policy's own tokens (the continuation, the sampled members) under
// ppo-clip's −A·r (r = 1 on the first minibatch), all over one token-mean. Also: the expert tokens'
// log-probs are the policy's own (the trainer's at the sampling weights), and setup refuses a pool
// without worked solutions.
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
import { policyLimits } from '../training/rl/level-fit.ts';
import { buildContext, drawPool, validateRlConfig } from '../training/rl/setup.ts';
import { rlStep } from '../training/rl/step.ts';
import { guidances } from './index.ts';

const config = (options: object, extra: object = {}) =>
  rlConfigSchema.parse({
    seed: 4,
    init: { checkpoint: 'examples/checkpoints/demo-cold' },
    tasks: [{ task: 'addition', difficulties: [4] }],
    poolSize: 3,
    guidance: { name: 'off-policy-prefix', options },
    algorithm: { advantage: { name: 'dr-grpo' } },
    rollout: { groupSize: 4, maxTokens: 48 },
    train: { steps: 2, batchSize: 3, learningRate: 1e-4 },
    policy: { workers: 1 },
    ...extra,
  });

interface Sent {
  data: Datum[];
  logprobs: number[][];
}

/** Records the first forwardBackward call (data and the trainer's log-probs); the real backend runs. */
function recordFirst(policy: { forwardBackward: (data: Datum[], loss: never) => Promise<any> }): Sent {
  const sent: Sent = { data: [], logprobs: [] };
  const forwardBackward = policy.forwardBackward.bind(policy);
  policy.forwardBackward = async (data, loss) => {
    const result = await forwardBackward(data, loss);
    if (sent.data.length === 0) {
      sent.data = data;
      sent.logprobs = result.logprobs;
    }
    return result;
  };
  return sent;
}

/** LUFFY's shaped term's weight at probability p for advantage a (before the 1/n of token-mean). */
const shaped = (a: number, p: number) => (-a * 0.1 * p) / (p + 0.1) ** 2;

async function checkStep(options: object, complete: boolean, expertWeight = shaped): Promise<void> {
  const ctx = await buildContext(config(options));
  const sent = recordFirst(ctx.policy as never);
  try {
    const report = await rlStep(ctx, 1, 1e-4);
    const { tokenizer } = ctx.policy;
    const groups = report.groups;
    const trained = groups.flatMap((group) => group.rollouts.filter((rollout) => rollout.tokens.length > 0));
    const n = trained.reduce((sum, rollout) => sum + rollout.tokens.length, 0);
    expect(sent.data).toHaveLength(trained.length);
    const used = new Set<number>();
    let expertChecked = 0;
    let ownChecked = 0;
    for (const group of groups) {
      const { problem } = group.attempt;
      expect(group.rollouts).toHaveLength(4);
      expect(group.context).toEqual(promptTokens(tokenizer, problem));
      const text = complete ? problem.solution : problem.solution.slice(0, problem.solution.length / 2);
      const expertIds = [...tokenizer.encode(text, 'test'), ...(complete ? [tokenizer.eos] : [])];
      const trace = group.rollouts[3];
      expect(group.rollouts.slice(0, 3).every((rollout) => rollout.expertTokens === undefined)).toBe(true);
      expect(trace.expertTokens).toBe(expertIds.length);
      expect(trace.tokens.slice(0, expertIds.length)).toEqual(expertIds);
      expect(group.completions[3]).toBe(complete ? problem.solution : text + trace.text.slice(text.length));
      if (complete) {
        expect(trace.tokens).toEqual(expertIds);
        expect(group.rewards[3]).toBe(1);
      } else {
        expect(trace.tokens.length).toBeGreaterThan(expertIds.length); // the policy continued
      }
      const mean = group.rewards.reduce((a, b) => a + b, 0) / 4;
      group.rollouts.forEach((rollout, i) => {
        const a = group.rewards[i] - mean;
        const expert = rollout.expertTokens ?? 0;
        const expected = rollout.tokens.map((_, t) => {
          if (t >= expert) return -a / n;
          return expertWeight(a, Math.exp(rollout.logprobs[t])) / n;
        });
        // The datum with this member's tokens (an identical completion of another member may exist: take
        // an unused one whose weights match; none matching fails).
        const index = sent.data.findIndex(
          (datum, d) =>
            !used.has(d) &&
            datum.tokens.join() === [...group.context, ...rollout.tokens].join() &&
            datum.weights
              .slice(group.context.length - 1)
              .every((weight, t) => Math.abs(weight - expected[t]) < 1e-10),
        );
        expect(index, `member ${i} of ${problem.id} (expert tokens ${expert})`).toBeGreaterThanOrEqual(0);
        used.add(index);
        const weights = sent.data[index].weights;
        expect(weights.slice(0, group.context.length - 1).every((weight) => weight === 0)).toBe(true);
        // The expert tokens' log-probs are the policy's own at the sampling weights.
        const trainerLogprobs = sent.logprobs[index].slice(group.context.length - 1);
        for (let t = 0; t < expert; t++) expect(rollout.logprobs[t]).toBeCloseTo(trainerLogprobs[t], 5);
        if (expertWeight(a, 0.5) !== 0 && expert > 0) expertChecked++;
        if (a !== 0 && rollout.tokens.length > expert) ownChecked++;
      });
    }
    // Some group's rewards differed, so both terms were checked on non-zero weights.
    expect(expertChecked).toBeGreaterThan(0);
    expect(ownChecked).toBeGreaterThan(0);
    const expertCount = trained.reduce((sum, rollout) => sum + (rollout.expertTokens ?? 0), 0);
    expect(report.metrics['offpolicy/token_frac']).toBeCloseTo(expertCount / n, 12);
    expect(report.metrics['offpolicy/prob_mean']).toBeGreaterThan(0);
    expect(report.metrics['guidance/guided_frac']).toBe(1);
    const own = groups.flatMap((group) => group.rewards.slice(0, 3));
    expect(report.metrics['guidance/unguided_pass_rate']).toBe(own.filter((r) => r > 0).length / own.length);
  } finally {
    await ctx.policy.close?.();
  }
}

describe('off-policy-prefix in a real RL step', () => {
  it('half the solution continued by the policy: expert tokens shaped, continuation and own members ppo-clip', async () => {
    await checkStep({ schedule: 'constant', from: 0.5 }, false);
  }, 30_000);

  it('TRAPO trust-region SFT on the expert tokens: −min(1, π/α) whatever the advantage, own tokens ppo-clip', async () => {
    // α = 0.9 puts some of demo-cold's expert tokens outside the region (at α = 0.1 none is: plain SFT).
    const trustRegion = (_a: number, p: number) => -Math.min(1, p / 0.9);
    await checkStep(
      { schedule: 'constant', from: 0.5, expertLoss: { name: 'trust-region-sft', options: { alpha: 0.9 } } },
      false,
      trustRegion,
    );
  }, 30_000);

  it('the whole solution + EOS (LUFFY): reward 1, every token of the trace under the shaped term', async () => {
    await checkStep({ schedule: 'constant', from: 1 }, true);
  }, 30_000);

  it('setup refuses a pool file without worked solutions, naming the file', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'curricula-luffy-')), 'pool.jsonl');
    const problem = { ...additionProblem('4321', '1234'), solution: '' };
    writeFileSync(file, `${JSON.stringify(problem)}\n`);
    const attempt = buildContext(config({}, { pool: { file } }));
    await expect(attempt).rejects.toThrow(ConfigError);
    await expect(attempt).rejects.toThrow(
      `guidance 'off-policy-prefix' needs worked solutions, but 1 of 1 problems from pool file ${file}`,
    );
  });
});

describe('examples/ladder-off-policy-prefix.yaml', () => {
  it('builds its scaffold on the drawn pool, and every whole trace fits the context and maxTokens', () => {
    const file = 'examples/ladder-off-policy-prefix.yaml';
    const example = loadConfigFile(rlConfigSchema, file);
    validateRlConfig(example);
    const pool = drawPool(example);
    const guidance = guidances.get(example.guidance.name)(example.guidance.options, {
      pool,
      totalSteps: example.train.steps,
      source: file,
    });
    expect(guidance.name).toBe('off-policy-prefix');
    expect(guidance.expertLoss).toEqual({ name: 'policy-shaping', options: { gamma: 0.1 } });
    const limits = policyLimits(example, 'examples/checkpoints/ladder-cold');
    const contexts = pool.map((problem) => promptTokens(limits.tokenizer, problem).length);
    const longest = Math.max(...contexts);
    expect(longest).toBeLessThanOrEqual(19);
    // rollout.ts: every member of a step gets min(maxTokens, context − longest prompt).
    const room = Math.min(example.rollout.maxTokens, limits.contextLength - longest);
    expect(room).toBe(96);
    const traces = pool.map((problem) => limits.tokenizer.encode(problem.solution, 'test').length + 1);
    expect(Math.max(...traces)).toBe(84);
    expect(Math.max(...traces)).toBeLessThanOrEqual(room);
  });
});
