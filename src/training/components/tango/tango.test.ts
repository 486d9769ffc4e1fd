// Tango (components/tango): the verdict arithmetic by hand, then real GRPO steps on demo-cold with a
// verifier built from the same checkpoint: it judges every completion, its process reward is added to the
// run's reward, it is trained (its log-probs move), its weights travel with the checkpoint, and a run
// stopped after 2 steps and resumed logs exactly the metrics of the run that went straight to 3 — which it
// cannot if the verifier restarted from its initial weights.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../core/errors.ts';
import { stopAndResume } from '../../../testing/training/rl/resume-check.ts';
import { rlConfigSchema } from '../../rl/config.ts';
import { buildContext, validateRlConfig } from '../../rl/setup.ts';
import { rlStep } from '../../rl/step.ts';
import { tangoOf } from './component.ts';
import { processScore, readVerdict, stepsOf, verifierReward } from './verdicts.ts';

describe('Tango verdicts', () => {
  it('one letter per step; process score is the share judged right; the verifier is paid for the outcome', () => {
    expect(stepsOf('2+3+0=05\n\nA:5')).toEqual(['2+3+0=05', 'A:5']);
    const right = readVerdict('Y Y', 2);
    expect(right.steps).toEqual([true, true]);
    const wrong = readVerdict('YNextra', 2);
    expect(wrong.steps).toEqual([true, false]);
    expect(readVerdict('Y', 2).steps).toBeNull();
    expect(readVerdict('YX', 2).steps).toBeNull();
    expect(processScore(wrong)).toBe(0.5);
    expect(processScore(readVerdict('?', 1))).toBe(0);
    // all steps right = "the solution is right": paid 1 when that matches the outcome
    expect(verifierReward('YY', right, true, 2, 0.2)).toBe(1);
    expect(verifierReward('YY', right, false, 2, 0.2)).toBe(0);
    expect(verifierReward('YN', wrong, false, 2, 0.2)).toBe(1);
    // malformed: the format credit times the share of Y/N letters
    expect(verifierReward('Yq', readVerdict('Yq', 2), true, 2, 0.2)).toBeCloseTo(0.1, 12);
  });
});

const config = (runsDir: string, steps = 3) =>
  rlConfigSchema.parse({
    name: 'tango',
    runsDir,
    seed: 7,
    init: { checkpoint: 'examples/checkpoints/demo-cold' },
    tasks: [{ task: 'addition', difficulties: [2] }],
    poolSize: 6,
    rollout: { groupSize: 3, maxTokens: 32 },
    // demo-cold writes digits after ':' now and then: verdict letters it can reach, so the verifier learns
    tango: { samples: 4, learningRate: 3e-3, right: '1', wrong: '0' },
    train: { steps, batchSize: 2, learningRate: 1e-4 },
    eval: { every: 0, problemsPerDifficulty: 1, samples: 1 },
    checkpoint: { latestEvery: 1 },
    log: { samplesPerStep: 0 },
    policy: { workers: 1 },
  });

describe('tango in the RL loop (demo-cold, workers 1)', () => {
  it('judges every completion, adds the process reward, trains the verifier', async () => {
    const ctx = await buildContext(config('/tmp/unused'));
    const tango = tangoOf(ctx)!;
    try {
      const probe = [ctx.policy.tokenizer.bos, ...ctx.policy.tokenizer.encode('12+34\nA:46\nV:11')];
      const [before] = await tango.round.verifier.forward([probe]);
      for (const step of [1, 2]) {
        const report = await rlStep(ctx, step, 1e-4);
        expect(report.metrics['tango/judged']).toBe(6);
        expect(report.metrics['tango/skipped']).toBe(0);
        const format = report.metrics['tango/verifier_format'];
        expect(format).toBeGreaterThanOrEqual(0);
        expect(format).toBeLessThanOrEqual(1);
        expect(report.metrics['tango/verifier_trained']).toBeGreaterThan(0);
        // some replies carry verdict digits: the format credit gives the verifier a gradient
        expect(report.metrics['tango/verifier_reward']).toBeGreaterThan(0);
        expect(report.metrics['tango/verifier_grad_norm']).toBeGreaterThan(0);
        // the reward the policy trains on = the run's (outcome) reward + the process score (weight 1)
        for (const group of report.groups) {
          group.rewards.forEach((reward, i) => {
            const added = reward - group.results[i].reward;
            expect(added).toBeGreaterThanOrEqual(0);
            expect(added).toBeLessThanOrEqual(1);
          });
        }
      }
      const [after] = await tango.round.verifier.forward([probe]);
      const moved = after.reduce((max, value, t) => Math.max(max, Math.abs(value - before[t])), 0);
      expect(moved).toBeGreaterThan(1e-4);
    } finally {
      await ctx.policy.close?.();
      await tango.close?.();
    }
  }, 120_000);

  it('counts the judging of every rollout round of a step (dynamic sampling samples more than one)', async () => {
    const base = config('/tmp/unused');
    const ctx = await buildContext({
      ...base,
      algorithm: { ...base.algorithm, dynamicSampling: { enabled: true, maxRounds: 3 } },
    });
    const tango = tangoOf(ctx)!;
    try {
      let rounds = 0;
      for (const step of [1, 2, 3]) {
        const report = await rlStep(ctx, step, 1e-4);
        rounds = Math.max(rounds, report.metrics['sampling/rounds']);
        // every completion sampled this step, in every round, was judged or skipped (3 per group)
        expect(report.metrics['tango/judged'] + report.metrics['tango/skipped']).toBe(
          report.metrics['sampling/groups'] * 3,
        );
      }
      expect(rounds).toBeGreaterThan(1);
    } finally {
      await ctx.policy.close?.();
      await tango.close?.();
    }
  }, 120_000);

  it('the verifier is saved with each checkpoint; stop after 2 + resume = 3 straight', async () => {
    const { straight, resumed, stoppedRunDir } = await stopAndResume((dir) => config(dir), 2, 'tango');
    expect(
      existsSync(join(stoppedRunDir, 'checkpoints', 'step-000002', 'components', 'tango', 'model')),
    ).toBe(true);
    expect(resumed.steps).toBe(3);
    expect(straight.metrics.map((line) => line['tango/judged'])).toEqual([6, 6, 6]);
    expect(resumed.metrics).toEqual(straight.metrics);
  }, 180_000);

  it('refuses a remote policy backend before any model is built', () => {
    const remote = {
      ...config('/tmp/unused'),
      policy: { ...config('/tmp/unused').policy, backend: 'tinker' },
    } as ReturnType<typeof config>;
    expect(() => validateRlConfig(remote)).toThrow(ConfigError);
  });
});
