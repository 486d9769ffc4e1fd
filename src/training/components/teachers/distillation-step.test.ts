// On-policy distillation in real RL steps: student ladder-cold, teachers built from real checkpoints
// (workers 1). Checked on real token ids, through the weights the step sends the backend:
// - a teacher with the student's own weights scores every sampled token as the sampler did (teacher/kl
//   ≈ 0): an alignment off by one position would not;
// - with demo-cold as teacher each token's weight is −(A + (lp_teacher − lp_sampler))/N, lp_teacher read
//   from an independent forward of the teacher checkpoint at position c − 1 + t;
// - a teacher that throws mid-step costs only its group the teacher term (teacher/failures,
//   teacher/failed_groups), and the next step runs normally.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Datum, PolicyBackend } from '../../../core/policy.ts';
import { EmbeddedBackend } from '../../../policy/embedded-backend.ts';
import { TeacherPool } from '../../../teachers/teacher-pool.ts';
import { rlConfigSchema } from '../../rl/config.ts';
import type { RlContext } from '../../rl/context.ts';
import type { SampledGroup } from '../../rl/rollout.ts';
import { buildContext } from '../../rl/setup.ts';
import { rlStep } from '../../rl/step.ts';
import { teachersOf } from './component.ts';

const config = (teacher: object, extra: object = {}) =>
  rlConfigSchema.parse({
    seed: 3,
    init: { checkpoint: 'examples/checkpoints/ladder-cold' },
    tasks: [{ task: 'addition', difficulties: [5] }],
    poolSize: 3,
    rollout: { groupSize: 4, maxTokens: 64 },
    algorithm: {
      advantage: { name: 'dr-grpo' },
      loss: { name: 'importance-sampling', options: { aggregation: 'token-mean' } },
    },
    train: { steps: 2, batchSize: 3, learningRate: 1e-4 },
    policy: { workers: 1 },
    teacher,
    ...extra,
  });

let demo: PolicyBackend;
beforeAll(async () => {
  demo = await EmbeddedBackend.load('examples/checkpoints/demo-cold');
});
afterAll(async () => {
  await demo.close?.();
});

/** Records the data of every forwardBackward call (the real backend runs). */
function recordData(policy: PolicyBackend): Datum[][] {
  const calls: Datum[][] = [];
  const forwardBackward = policy.forwardBackward.bind(policy);
  policy.forwardBackward = async (data, loss) => {
    calls.push(data);
    return forwardBackward(data, loss);
  };
  return calls;
}

/** The completion weights of the datum holding `tokens` after `context` (an unused one), or fails. */
function weightsOf(data: Datum[], used: Set<number>, context: number[], tokens: number[]): number[] {
  const index = data.findIndex(
    (datum, d) => !used.has(d) && datum.tokens.join() === [...context, ...tokens].join(),
  );
  expect(index).toBeGreaterThanOrEqual(0);
  used.add(index);
  return data[index].weights.slice(context.length - 1);
}

const trainedTokens = (groups: readonly SampledGroup[]) =>
  groups.flatMap((group) => group.rollouts).reduce((sum, rollout) => sum + rollout.tokens.length, 0);

async function withContext(
  teacher: object,
  run: (ctx: RlContext) => Promise<void>,
  extra: object = {},
): Promise<void> {
  const ctx = await buildContext(config(teacher, extra));
  try {
    await run(ctx);
  } finally {
    await ctx.policy.close?.();
    await teachersOf(ctx)?.teachers?.close();
  }
}

describe('on-policy distillation step', () => {
  it('a teacher with the student’s weights agrees with the sampler on every token (alignment)', async () => {
    await withContext(
      { pool: [{ name: 'same', checkpoint: 'examples/checkpoints/ladder-cold' }], opd: {} },
      async (ctx) => {
        const report = await rlStep(ctx, 1, 1e-4);
        expect(Math.abs(report.metrics['teacher/kl'])).toBeLessThan(1e-4);
        expect(report.metrics['teacher/signal_frac']).toBe(1);
        expect(report.metrics['teacher/failures']).toBe(0);
        expect(report.metrics['perf/teacher/score_ms']).toBeGreaterThan(0);
      },
    );
  }, 60_000);

  it('weights −(A + lp_teacher − lp_sampler)/N on each sampled token (demo-cold teacher)', async () => {
    await withContext(
      { pool: [{ name: 'demo', checkpoint: 'examples/checkpoints/demo-cold' }], opd: {} },
      async (ctx) => {
        const calls = recordData(ctx.policy);
        const report = await rlStep(ctx, 1, 1e-4);
        const groups = report.groups;
        const n = trainedTokens(groups);
        const used = new Set<number>();
        let klSum = 0;
        let checked = 0;
        for (const group of groups) {
          const mean = group.rewards.reduce((a, b) => a + b, 0) / group.rewards.length;
          for (const [i, rollout] of group.rollouts.entries()) {
            const c = group.context.length;
            const [teacherRow] = await demo.forward([[...group.context, ...rollout.tokens]]);
            const weights = weightsOf(calls[0], used, group.context, rollout.tokens);
            rollout.tokens.forEach((_, t) => {
              const teacher = teacherRow[c - 1 + t];
              const advantage = group.rewards[i] - mean + (teacher - rollout.logprobs[t]);
              // float32 forwards of a batch and of one sequence differ in the last digits.
              expect(weights[t]).toBeCloseTo(-advantage / n, 7);
              klSum += rollout.logprobs[t] - teacher;
              checked++;
            });
          }
        }
        expect(checked).toBe(n);
        expect(report.metrics['teacher/kl']).toBeCloseTo(klSum / n, 5);
        expect(Math.abs(report.metrics['teacher/kl'])).toBeGreaterThan(0.01);
      },
    );
  }, 60_000);

  it('a teacher that throws mid-step costs only its group the teacher term; the next step runs', async () => {
    await withContext(
      { pool: [{ name: 'demo', checkpoint: 'examples/checkpoints/demo-cold' }], opd: {} },
      async (ctx) => {
        // Call 1 (the batched forward) and call 3 (the second group alone) throw; every later call works.
        let call = 0;
        const flaky: PolicyBackend = {
          ...demo,
          tokenizer: demo.tokenizer,
          contextLength: demo.contextLength,
          forward: async (sequences) => {
            call++;
            if (call === 1 || call === 3) throw new Error(`teacher crashed on call ${call}`);
            return demo.forward(sequences);
          },
        };
        const component = teachersOf(ctx)!;
        component.teachers = new TeacherPool([['flaky', flaky]], 10_000);
        component.distillation = {
          ...component.distillation!,
          teachers: component.teachers,
          teacher: 'flaky',
        };
        const calls = recordData(ctx.policy);
        const report = await rlStep(ctx, 1, 1e-4);
        expect(report.metrics['teacher/failures']).toBe(2);
        expect(report.metrics['teacher/failed_groups']).toBe(1);
        expect(report.metrics['teacher/signal_frac']).toBeCloseTo(2 / 3, 12);
        // The failed (second) group trains on its task advantage alone: −A/N on every token.
        const n = trainedTokens(report.groups);
        const failed = report.groups[1];
        const mean = failed.rewards.reduce((a, b) => a + b, 0) / failed.rewards.length;
        const used = new Set<number>();
        for (const [i, rollout] of failed.rollouts.entries()) {
          const weights = weightsOf(calls[0], used, failed.context, rollout.tokens);
          for (const weight of weights) expect(weight).toBeCloseTo(-(failed.rewards[i] - mean) / n, 12);
        }
        const next = await rlStep(ctx, 2, 1e-4);
        expect(next.metrics['teacher/failures']).toBe(0);
        expect(next.metrics['teacher/signal_frac']).toBe(1);
      },
    );
  }, 60_000);

  it('expert-trace tokens (off-policy-prefix) carry no teacher term, only their task advantage', async () => {
    const guidance = { name: 'off-policy-prefix', options: { schedule: 'constant', from: 1 } };
    await withContext(
      { pool: [{ name: 'demo', checkpoint: 'examples/checkpoints/demo-cold' }], opd: {} },
      async (ctx) => {
        const calls = recordData(ctx.policy);
        const report = await rlStep(ctx, 1, 1e-4);
        const n = trainedTokens(report.groups);
        let checked = 0;
        for (const group of report.groups) {
          const mean = group.rewards.reduce((a, b) => a + b, 0) / group.rewards.length;
          const last = group.rollouts.length - 1;
          const trace = group.rollouts[last];
          expect(trace.expertTokens).toBe(trace.tokens.length);
          const a = group.rewards[last] - mean;
          // LUFFY's shaping −A·γ·p/(p+γ)², γ = 0.1, with A the task advantage alone.
          const expected = trace.tokens.map((_, t) => {
            const p = Math.exp(trace.logprobs[t]);
            return (a * 0.1 * p) / (p + 0.1) ** 2;
          });
          // A sampled member may have the same tokens (a correct sample equals the solution): the trace's
          // datum is one with these tokens whose weights match; none matching fails.
          const full = [...group.context, ...trace.tokens].join();
          const match = calls[0].find(
            (datum) =>
              datum.tokens.join() === full &&
              datum.weights
                .slice(group.context.length - 1)
                .every((weight, t) => Math.abs(-weight * n - expected[t]) < 1e-4),
          );
          expect(match, `trace of ${group.attempt.problem.id}`).toBeDefined();
          checked += trace.tokens.length;
        }
        expect(checked).toBeGreaterThan(0);
        expect(report.metrics['teacher/signal_frac']).toBe(1);
      },
      { guidance },
    );
  }, 60_000);
});
