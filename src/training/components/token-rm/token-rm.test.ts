// OREAL's token-level reward model (components/token-rm): the weights by hand from the authors'
// threshold_rescale on the running mean; in the RL loop on demo-cold with loss oreal, the weights sent to
// the backend are OREAL's class-normalised terms with each token's advantage A·w_t (w recomputed here from
// the model's scores at that moment), the model trains on the outcome (its scores move), it travels with
// the checkpoint (stop after 2 + resume = 3 straight), and the pairings it cannot serve are refused.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../core/errors.ts';
import type { Datum } from '../../../core/policy.ts';
import { ValueModel } from '../../../policy/value-model.ts';
import { stopAndResume } from '../../../testing/training/rl/resume-check.ts';
import { rlConfigSchema } from '../../rl/config.ts';
import { buildContext, validateRlConfig } from '../../rl/setup.ts';
import { rlStep } from '../../rl/step.ts';
import { tokenRewardOf } from './component.ts';
import { orealTokenWeights, thresholdRescale } from './token-weights.ts';

const config = (runsDir: string, steps = 3, overrides: Record<string, unknown> = {}) =>
  rlConfigSchema.parse({
    name: 'token-rm',
    runsDir,
    seed: 5,
    init: { checkpoint: 'examples/checkpoints/demo-cold' },
    tasks: [{ task: 'addition', difficulties: [2] }],
    poolSize: 6,
    rollout: { groupSize: 4, maxTokens: 32 },
    algorithm: {
      advantage: { name: 'rloo' },
      loss: { name: 'oreal' },
      tokenRewardModel: { learningRate: 1e-3 },
    },
    train: { steps, batchSize: 3, learningRate: 1e-4 },
    eval: { every: 0, problemsPerDifficulty: 1, samples: 1 },
    checkpoint: { latestEvery: 1 },
    log: { samplesPerStep: 0 },
    policy: { workers: 1 },
    ...overrides,
  });

describe('OREAL token weights', () => {
  it('scores 2, −2, −4: running means 2, 0, −4/3; w⁺ = 0.761594, 0, 0 and w⁻ = 0, 0, 0.582783', () => {
    const thresholds = { correctThreshold: 0.5, incorrectThreshold: 0.5 };
    const positive = orealTokenWeights([2, -2, -4], true, thresholds);
    const negative = orealTokenWeights([2, -2, -4], false, thresholds);
    // σ(2) = 0.880797 → (0.880797 − 0.5)/0.5; σ(−4/3) = 0.208609 → 1 − p = 0.791391 → 0.582783
    [0.761594156, 0, 0].forEach((w, t) => {
      expect(positive[t]).toBeCloseTo(w, 8);
    });
    [0, 0, 0.58278295].forEach((w, t) => {
      expect(negative[t]).toBeCloseTo(w, 7);
    });
    expect(thresholdRescale(0.75, 0.25)).toBeCloseTo(2 / 3, 12);
    expect(thresholdRescale(0.1, 0.25)).toBe(0);
  });
});

describe('ValueModel.sequenceBceAndGradients (the token-level reward model loss)', () => {
  it('loss = mean over sequences of BCE(mean score, label); ∂/∂bias = mean of σ(m) − y', async () => {
    const model = await ValueModel.load('examples/checkpoints/demo-cold', 3);
    try {
      const encode = (text: string) => [1, ...text.split('').map((c) => 3 + (c.charCodeAt(0) % 20))];
      const rows = [
        { tokens: encode('12+34=46'), start: 5, length: 3, label: 1 },
        { tokens: encode('9+9=17'), start: 3, length: 3, label: 0 },
      ];
      const scores = model.values(
        rows.map((row) => row.tokens),
        4096,
      );
      const sigmoid = (x: number) => 1 / (1 + Math.exp(-x));
      const means = rows.map((row, i) => {
        const span = scores[i].slice(row.start, row.start + row.length);
        return span.reduce((a, b) => a + b, 0) / span.length;
      });
      const bce = (m: number, y: number) => -(y * Math.log(sigmoid(m)) + (1 - y) * Math.log(1 - sigmoid(m)));
      const { loss, gradients } = model.sequenceBceAndGradients(rows, 4096);
      expect(loss).toBeCloseTo((bce(means[0], 1) + bce(means[1], 0)) / 2, 5);
      const bias = gradients.get('value_head.bias')!.dataSync()[0];
      expect(bias).toBeCloseTo((sigmoid(means[0]) - 1 + sigmoid(means[1])) / 2, 5);
      for (const gradient of gradients.values()) gradient.dispose();
    } finally {
      model.dispose();
    }
  });
});

describe('the token-level reward model in the RL loop (demo-cold, workers 1)', () => {
  it("the loss trains on A·w_t under OREAL's class normalisers; the model learns the outcome", async () => {
    const ctx = await buildContext(config('/tmp/unused'));
    const component = tokenRewardOf(ctx)!;
    const round = component.round;
    let scores: number[][] = [];
    const original = round.advantages.bind(round);
    round.advantages = (groups, estimate) => {
      scores = round.model.values(
        groups.flatMap((group) => group.rollouts.map((rollout) => [...group.context, ...rollout.tokens])),
        4096,
      );
      return original(groups, estimate);
    };
    let sent: Datum[] = [];
    const forwardBackward = ctx.policy.forwardBackward.bind(ctx.policy);
    ctx.policy.forwardBackward = async (data, loss) => {
      if (sent.length === 0) sent = data;
      return forwardBackward(data, loss);
    };
    try {
      const probe = [ctx.policy.tokenizer.bos, ...ctx.policy.tokenizer.encode('1234+5678\nA:6912')];
      const [before] = round.model.values([probe], 4096);
      const report = await rlStep(ctx, 1, 1e-4);
      expect(report.metrics['tokenrm/loss']).toBeGreaterThan(0);
      expect(report.metrics['perf/time/token_rm_train']).toBeGreaterThan(0);
      const [after] = round.model.values([probe], 4096);
      expect(after).not.toEqual(before);
      // Expected per-token weights: −f·A·w_t/N_class (f⁺ 1, f⁻ 0.5) on each trained member.
      const members = report.groups.flatMap((group, g) =>
        group.rollouts.map((rollout, i) => ({ group, g, i, rollout })),
      );
      const trained = members.filter(({ rollout }) => rollout.tokens.length > 0);
      const correct = (m: (typeof members)[number]) => m.group.rewards[m.i] >= 1;
      const count = (positive: boolean) =>
        trained.filter((m) => correct(m) === positive).reduce((sum, m) => sum + m.rollout.tokens.length, 0);
      let k = 0;
      let checked = 0;
      const used = new Set<number>();
      for (const m of members) {
        const row = scores[k++];
        if (m.rollout.tokens.length === 0) continue;
        const start = m.group.context.length - 1;
        const positive = correct(m);
        const weights = orealTokenWeights(row.slice(start, start + m.rollout.tokens.length), positive, {
          correctThreshold: 0.5,
          incorrectThreshold: 0.5,
        });
        const n = count(positive);
        const advantage = m.group.advantages![m.i];
        expect(m.group.advantageKind).toBe('token-mean');
        // The group records the mean of the token advantages A·w_t; A is RLOO's (a leave-one-out mean).
        const rewards = m.group.rewards;
        const rloo =
          rewards[m.i] - (rewards.reduce((a, b) => a + b, 0) - rewards[m.i]) / (rewards.length - 1);
        expect(advantage).toBeCloseTo((rloo * weights.reduce((a, b) => a + b, 0)) / weights.length, 9);
        const expected = weights.map((w) => (-(positive ? 1 : 0.5) * rloo * w) / n);
        const index = sent.findIndex(
          (datum, d) =>
            !used.has(d) &&
            datum.tokens.join() === [...m.group.context, ...m.rollout.tokens].join() &&
            datum.weights.slice(start).every((weight, t) => Math.abs(weight - expected[t]) < 1e-9),
        );
        expect(index, `member ${m.i} of group ${m.g}`).toBeGreaterThanOrEqual(0);
        used.add(index);
        if (expected.some((w) => w !== 0) && weights.some((w) => w > 0 && w < 1)) checked++;
      }
      // Some member had non-trivial weights (strictly between 0 and 1) and a non-zero advantage.
      expect(checked).toBeGreaterThan(0);
    } finally {
      await ctx.policy.close?.();
      await component.close?.();
    }
  }, 120_000);

  it('is saved with each checkpoint; stop after 2 + resume = 3 straight', async () => {
    const { straight, resumed, stoppedRunDir } = await stopAndResume((dir) => config(dir), 2, 'token-rm');
    const saved = join(stoppedRunDir, 'checkpoints', 'step-000002', 'components', 'token-rm', 'model');
    expect(existsSync(join(saved, 'value-head.safetensors'))).toBe(true);
    expect(resumed.steps).toBe(3);
    expect(straight.metrics.every((line) => Number.isFinite(line['tokenrm/loss']))).toBe(true);
    expect(resumed.metrics).toEqual(straight.metrics);
  }, 180_000);

  it('refuses a remote policy, the critic, teacher.opd and oreal without multiplyAdvantage, before any model', () => {
    const base = config('/tmp/unused');
    const remote = { ...base, policy: { ...base.policy, backend: 'tinker' } } as typeof base;
    expect(() => validateRlConfig(remote)).toThrow(ConfigError);
    const critic = config('/tmp/unused', 3, {
      algorithm: { ...base.algorithm, advantage: { name: 'gae' }, critic: {} },
    });
    expect(() => validateRlConfig(critic)).toThrow(/tokenRewardModel: algorithm.critic/);
    const noAdvantage = config('/tmp/unused', 3, {
      algorithm: { ...base.algorithm, loss: { name: 'oreal', options: { multiplyAdvantage: false } } },
    });
    expect(() => validateRlConfig(noAdvantage)).toThrow(/multiplyAdvantage false/);
    expect(() =>
      rlConfigSchema.parse({ ...base, algorithm: { ...base.algorithm, tokenRewardModel: { lr: 1 } } }),
    ).toThrow(/lr/);
  });
});
