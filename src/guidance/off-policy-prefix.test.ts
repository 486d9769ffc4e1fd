// `off-policy-prefix` (LUFFY / Prefix-RFT) through plan/observe on real addition problems: the prefix
// fraction's schedules, the traces it plans (perGroup, whole vs continued), the ledger's split of a traced
// group (own members unguided, traces guided), option and pool refusals, state/load exact; and a real run
// on demo-cold stopped after 2 steps and resumed to 4 logs the metrics of the run that went straight to 4.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, UnknownNameError } from '../core/errors.ts';
import type { Problem } from '../core/problem.ts';
import type { GroupOutcome } from '../core/selector.ts';
import { readCheckpoint } from '../runs/checkpoints.ts';
import { additionProblem } from '../tasks/addition.ts';
import { rlConfigSchema } from '../training/rl/config.ts';
import { train } from '../training/rl/train.ts';
import type { Guidance, GuidanceContext } from './guidance.ts';
import { guidances } from './index.ts';
import { type OffPolicyPrefixOptions, prefixFraction } from './off-policy-prefix.ts';

const hard = additionProblem('98765432', '12345678'); // 83-character solution
const easy = additionProblem('11111111', '22222222');
const pool = [hard, easy];
const context: GuidanceContext = { pool, totalSteps: 11, source: 'tasks addition' };
const outcome = (problem: Problem, rewards: number[]): GroupOutcome => ({
  problem,
  rewards,
  advantages: rewards.map(() => 0),
});
const create = (options: object = {}, ctx: GuidanceContext = context): Guidance =>
  guidances.get('off-policy-prefix')(options, ctx);
const defaults = (options: object = {}) =>
  ({ perGroup: 1, schedule: 'cosine', from: 0.95, to: 0.05, ...options }) as OffPolicyPrefixOptions;

describe('off-policy-prefix', () => {
  it('schedules p: cosine 0.95 → 0.05 (0.5 half-way), linear, constant', () => {
    const cosine = [1, 3.5, 6, 11].map((step) => prefixFraction(defaults(), 11, step));
    expect(cosine[0]).toBeCloseTo(0.95, 12);
    expect(cosine[1]).toBeCloseTo(0.05 + 0.9 * ((1 + Math.cos(Math.PI / 4)) / 2), 12);
    expect(cosine[2]).toBeCloseTo(0.5, 12);
    expect(cosine[3]).toBeCloseTo(0.05, 12);
    expect(prefixFraction(defaults({ schedule: 'linear' }), 11, 3)).toBeCloseTo(0.95 - 0.18, 12);
    expect(prefixFraction(defaults({ schedule: 'constant', from: 1 }), 11, 7)).toBe(1);
    expect(prefixFraction(defaults(), 1, 1)).toBe(0.95);
  });

  it('plans perGroup traces of the solution: continued below p = 1, whole at p = 1; bare prompt', () => {
    const guidance = create({ perGroup: 2 });
    const [attempt] = guidance.plan([hard], 6); // p = 0.5: floor(41.5) = 41 characters
    expect(attempt).toMatchObject({ prompt: hard.prompt, prefix: '', guided: true });
    expect(attempt.offPolicy).toEqual([
      { text: hard.solution.slice(0, 41), complete: false },
      { text: hard.solution.slice(0, 41), complete: false },
    ]);
    const whole = create({ schedule: 'constant', from: 1 }).plan([hard], 1)[0];
    expect(whole.offPolicy).toEqual([{ text: hard.solution, complete: true }]);
    // The trace is the answer by design: no leakage guard (it ends with "A:111111110").
    expect(whole.offPolicy![0].text.endsWith(`A:${hard.answer}`)).toBe(true);
  });

  it('splits a traced group: own members are unguided samples, the trace is the guided one', () => {
    const guidance = create();
    guidance.plan(pool, 6);
    // G = 4: three own members then the trace (last).
    guidance.observe(6, [outcome(hard, [0, 0, 0, 1]), outcome(easy, [1, 0, 1, 1])]);
    const metrics = guidance.metrics();
    expect(metrics).toMatchObject({
      'guidance/guided_frac': 1,
      'guidance/unguided_pass_rate': 2 / 6,
      'guidance/guided_pass_rate': 1,
      'guidance/unlocked': 0,
    });
    const easyChars = Math.floor(0.5 * easy.solution.length - 1e-9);
    expect(metrics['guidance/strength']).toBeCloseTo((41 / 83 + easyChars / easy.solution.length) / 2, 12);
    expect(metrics['guidance/prefix_fraction']).toBeCloseTo(0.5, 12);
    // hard's own members failed; a later own success unlocks it (the trace's success does not).
    guidance.plan([hard], 7);
    guidance.observe(7, [outcome(hard, [0, 0, 0, 1])]);
    expect(guidance.metrics()['guidance/unlocked']).toBe(0);
    guidance.plan([hard], 8);
    guidance.observe(8, [outcome(hard, [0, 1, 0, 1])]);
    expect(guidance.metrics()['guidance/unlocked']).toBe(1);
  });

  it('state/load is exact: a fresh instance continues as the original', () => {
    const original = create();
    original.plan(pool, 1);
    original.observe(1, [outcome(hard, [0, 0, 0, 1]), outcome(easy, [1, 1, 1, 1])]);
    const copy = create();
    copy.load(JSON.parse(JSON.stringify(original.state())));
    expect(copy.state()).toEqual(original.state());
    for (const guidance of [original, copy]) {
      guidance.plan(pool, 2);
      guidance.observe(2, [outcome(hard, [1, 0, 0, 1]), outcome(easy, [0, 0, 0, 1])]);
    }
    expect(copy.metrics()).toEqual(original.metrics());
    expect(copy.state()).toEqual(original.state());
    expect(() => copy.load({ ledger: { zeroSuccess: 'x' } })).toThrow(ConfigError);
  });

  it('refuses bad options, unknown expert terms, and a pool without worked solutions', () => {
    expect(() => create({ from: 0 })).toThrow(ConfigError);
    expect(() => create({ perGroup: 0 })).toThrow(ConfigError);
    expect(() => create({ schedul: 'cosine' })).toThrow(ConfigError);
    expect(() => create({ expertLoss: { name: 'nope' } })).toThrow(UnknownNameError);
    expect(() => create({ expertLoss: { name: 'policy-shaping', options: { gamma: -1 } } })).toThrow(
      ConfigError,
    );
    const bare = { ...hard, solution: '' };
    expect(() => create({}, { ...context, pool: [bare] })).toThrow(
      `guidance 'off-policy-prefix' needs worked solutions, but 1 of 1 problems from tasks addition`,
    );
    expect(() => guidances.get('off-policy-prefix')({})).toThrow(ConfigError);
  });
});

const runConfig = (runsDir: string) =>
  rlConfigSchema.parse({
    name: 'resume',
    runsDir,
    seed: 5,
    init: { checkpoint: 'examples/checkpoints/demo-cold' },
    tasks: [{ task: 'addition', difficulties: [4] }],
    poolSize: 3,
    guidance: { name: 'off-policy-prefix' },
    algorithm: { advantage: { name: 'dr-grpo' } },
    rollout: { groupSize: 3, maxTokens: 48 },
    train: { steps: 4, batchSize: 2, learningRate: 1e-4 },
    eval: { every: 0, problemsPerDifficulty: 1, samples: 1 },
    checkpoint: { latestEvery: 1 },
    log: { samplesPerStep: 0 },
    policy: { workers: 1 },
  });

const metricsOf = (runDir: string): Record<string, number>[] =>
  readFileSync(join(runDir, 'metrics.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, number>)
    .filter((line) => line.step > 0)
    .map((line) =>
      Object.fromEntries(
        Object.entries(line).filter(
          ([key]) => key !== 'time' && !key.startsWith('time/') && !key.startsWith('perf/'),
        ),
      ),
    );

describe('off-policy-prefix across resume', () => {
  it('stop after 2 steps + resume = 4 steps straight (metrics, expert-token metrics, state)', async () => {
    const straight = await train(runConfig(mkdtempSync(join(tmpdir(), 'luffy-straight-'))));
    const first = await train(runConfig(mkdtempSync(join(tmpdir(), 'luffy-resumed-'))), { stopAfter: 2 });
    const resumed = await train(null, { resume: first.runDir });
    expect(resumed.steps).toBe(4);
    const expected = metricsOf(straight.runDir);
    expect(expected.every((line) => line['offpolicy/token_frac'] > 0)).toBe(true);
    // Cosine over 4 steps: 0.05 + 0.9·(1 + cos(π·k/3))/2 for k = 0..3.
    [0.95, 0.725, 0.275, 0.05].forEach((p, i) => {
      expect(expected[i]['guidance/prefix_fraction']).toBeCloseTo(p, 12);
    });
    expect(expected.every((line) => line['guidance/unguided_pass_rate'] !== undefined)).toBe(true);
    expect(metricsOf(resumed.runDir)).toEqual(expected);
    const savedState = (runDir: string) => readCheckpoint(join(runDir, 'checkpoints'))!.state.extra!.guidance;
    expect(savedState(resumed.runDir)).toEqual(savedState(straight.runDir));
  }, 60_000);
});
