// `ampo` in real RL steps: student examples/checkpoints/ladder-cold (1-digit addition solved, 7-digit out
// of reach), teachers built from examples/checkpoints/demo-cold through the teacher pool (workers 1).
// - adaptive trigger: exactly the groups with no correct member get teacher solutions, each a complete
//   expert trace (its text's real token ids + EOS, all expert tokens) that the verifier accepted;
// - comprehension: with the worked solution ('oracle') and demo-cold's solution as candidates and k = 1,
//   the candidate with the higher scoreB — computed here from an independent forward of the student
//   checkpoint — is the one trained, and ampo/comprehension_mean is the mean of those scores;
// - a teacher whose calls throw (or time out) costs only its own solutions: the step runs, the other
//   candidates are used, ampo/teacher_failures counts the lost ones;
// - the weights sent to the backend put LUFFY's −A·γ·π/(π+γ)² on the expert tokens and ppo-clip's −A
//   (ratio 1 on the first minibatch) on the policy's own members, over one token-mean.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfigFile } from '../core/config.ts';
import { ConfigError } from '../core/errors.ts';
import type { Datum, PolicyBackend } from '../core/policy.ts';
import { EmbeddedBackend } from '../policy/embedded-backend.ts';
import { promptTokens } from '../tasks/format.ts';
import { teachersOf } from '../training/components/teachers/component.ts';
import { rlConfigSchema } from '../training/rl/config.ts';
import type { RlContext } from '../training/rl/context.ts';
import { buildContext, validateRlConfig } from '../training/rl/setup.ts';
import { rlStep } from '../training/rl/step.ts';
import { comprehensionSequence, meanGoldProbability } from './comprehension.ts';

const demoTeacher = { name: 'demo', checkpoint: 'examples/checkpoints/demo-cold' };

const config = (options: object, teacher: object | undefined, extra: object = {}) =>
  rlConfigSchema.parse({
    seed: 5,
    init: { checkpoint: 'examples/checkpoints/ladder-cold' },
    tasks: [{ task: 'addition', difficulties: [1, 7] }],
    poolSize: 4,
    guidance: { name: 'ampo', options },
    algorithm: {
      advantage: { name: 'dr-grpo' },
      loss: { name: 'ppo-clip', options: { aggregation: 'token-mean' } },
    },
    rollout: { groupSize: 4, maxTokens: 96 },
    train: { steps: 2, batchSize: 4, learningRate: 1e-4 },
    policy: { workers: 1 },
    ...(teacher && { teacher }),
    ...extra,
  });

let student: PolicyBackend;
beforeAll(async () => {
  student = await EmbeddedBackend.load('examples/checkpoints/ladder-cold');
});
afterAll(async () => {
  await student.close?.();
});

/** Rewards of every group as graded, before the hook replaced anything (the hook itself runs). */
function rewardsBeforeHelp(ctx: RlContext): number[][] {
  const seen: number[][] = [];
  const hook = ctx.guidance.teacherHelp!;
  const help = hook.help.bind(hook);
  (hook as { help: typeof help }).help = async (step, groups, tools) => {
    seen.push(...groups.map((group) => group.results.map((result) => result.reward)));
    return help(step, groups, tools);
  };
  return seen;
}

/** The first forwardBackward call's data; the real backend runs. */
function recordFirst(policy: PolicyBackend): Datum[] {
  const sent: Datum[] = [];
  const forwardBackward = policy.forwardBackward.bind(policy);
  policy.forwardBackward = async (data, loss) => {
    if (sent.length === 0) sent.push(...data);
    return forwardBackward(data, loss);
  };
  return sent;
}

async function withContext(
  options: object,
  teacher: object | undefined,
  run: (ctx: RlContext) => Promise<void>,
  extra: object = {},
): Promise<void> {
  const ctx = await buildContext(config(options, teacher, extra));
  try {
    await run(ctx);
  } finally {
    await ctx.policy.close?.();
    await teachersOf(ctx)?.teachers?.close();
  }
}

describe('ampo in a real RL step', () => {
  it('replaces members of exactly the failed groups with verified solutions; expert tokens shaped', async () => {
    await withContext({ oracle: true }, { pool: [demoTeacher] }, async (ctx) => {
      const before = rewardsBeforeHelp(ctx);
      const sent = recordFirst(ctx.policy);
      const report = await rlStep(ctx, 1, 1e-4);
      const { tokenizer } = ctx.policy;
      const failed = before.filter((rewards) => rewards.every((reward) => reward <= 0.5)).length;
      expect(failed, 'some 7-digit group failed').toBeGreaterThan(0);
      expect(failed, 'some 1-digit group was solved').toBeLessThan(before.length);
      let experts = 0;
      report.groups.forEach((group, g) => {
        const solved = before[g].some((reward) => reward > 0.5);
        const traces = group.rollouts.flatMap((rollout, i) => (rollout.expertTokens ? [i] : []));
        if (solved) {
          expect(traces).toEqual([]);
          expect(group.rewards).toEqual(before[g]);
          return;
        }
        // The oracle always passes the verifier: at least one trace, at most perGroup (2).
        expect(traces.length).toBeGreaterThanOrEqual(1);
        expect(traces.length).toBeLessThanOrEqual(2);
        for (const i of traces) {
          const rollout = group.rollouts[i];
          const ids = [...tokenizer.encode(group.completions[i], 'test'), tokenizer.eos];
          expect(rollout.tokens).toEqual(ids);
          expect(rollout.expertTokens).toBe(ids.length);
          expect(group.rewards[i]).toBe(1);
          experts++;
        }
        // Members not replaced keep their (failed) grades.
        group.rewards.forEach((reward, i) => {
          if (!traces.includes(i)) expect(reward).toBe(before[g][i]);
        });
      });
      expect(report.metrics['ampo/triggered']).toBe(failed);
      expect(report.metrics['ampo/selected']).toBe(experts);
      expect(report.metrics['ampo/teacher_solutions']).toBe(2 * failed);
      expect(report.metrics['ampo/teacher_failures']).toBe(0);
      expect(report.metrics['guidance/guided_frac']).toBe(failed / before.length);

      // Weights: one token-mean over every trained token; expert tokens shaped, own tokens −A/N.
      const n = report.groups.flatMap((group) => group.rollouts).reduce((s, r) => s + r.tokens.length, 0);
      const used = new Set<number>();
      let shaped = 0;
      for (const group of report.groups) {
        const mean = group.rewards.reduce((a, b) => a + b, 0) / group.rewards.length;
        group.rollouts.forEach((rollout, i) => {
          const a = group.rewards[i] - mean;
          const expert = rollout.expertTokens ?? 0;
          const expected = rollout.tokens.map((_, t) => {
            if (t >= expert) return -a / n;
            const p = Math.exp(rollout.logprobs[t]);
            return (-a * 0.1 * p) / (p + 0.1) ** 2 / n;
          });
          const index = sent.findIndex(
            (datum, d) =>
              !used.has(d) &&
              datum.tokens.join() === [...group.context, ...rollout.tokens].join() &&
              datum.weights
                .slice(group.context.length - 1)
                .every((weight, t) => Math.abs(weight - expected[t]) < 1e-10),
          );
          expect(index, `member ${i} of ${group.attempt.problem.id}`).toBeGreaterThanOrEqual(0);
          used.add(index);
          if (expert > 0 && a !== 0) shaped++;
        });
      }
      expect(shaped).toBe(experts);
      expect(report.metrics['offpolicy/token_frac']).toBeGreaterThan(0);
    });
  }, 30_000);

  it('keeps the candidate the student comprehends best (scoreB from an independent forward)', async () => {
    // Every group helped, on 6-digit problems (the student's edge: it still reads a sum off correct column
    // work; at 7 digits it is lost even there). trainRejected: demo-cold's solutions enter the ranking even
    // when wrong; k = 1.
    const options = { injection: 'always', oracle: true, perGroup: 1, trainRejected: true };
    const sixDigits = { tasks: [{ task: 'addition', difficulties: [6] }] };
    await withContext(
      options,
      { pool: [demoTeacher] },
      async (ctx) => {
        const teachers = teachersOf(ctx)!.teachers!;
        const sample = teachers.sample.bind(teachers);
        const written: string[][] = [];
        teachers.sample = async (prompts, sampleOptions, callOptions) => {
          const result = await sample(prompts, sampleOptions, callOptions);
          written.push(...result.map((row) => row.map((sequence) => sequence.text)));
          return result;
        };
        const report = await rlStep(ctx, 1, 1e-4);
        const helped = report.groups.filter((group) =>
          group.rollouts.some((rollout) => rollout.expertTokens),
        );
        expect(helped.length).toBe(report.metrics['ampo/triggered']);
        expect(helped.length).toBe(written.length);
        const scores: number[] = [];
        let decided = 0;
        for (const [h, group] of helped.entries()) {
          const { problem } = group.attempt;
          const context = promptTokens(student.tokenizer, problem);
          const texts = [written[h][0], problem.solution];
          const sequences = texts.map((text) =>
            comprehensionSequence(student.tokenizer, context, text, problem.answer, student.contextLength),
          );
          const open = sequences.filter((sequence) => sequence !== null);
          const logprobs = await student.forward(open.map((sequence) => sequence!.tokens));
          let next = 0;
          const score = sequences.map((sequence) =>
            sequence === null ? 0 : meanGoldProbability(sequence, logprobs[next++]),
          );
          scores.push(...score);
          // Hand check of one score: the mean of exp(log-prob) over the gold answer's tokens.
          // The oracle's sequence is context + its solution (char tokens), which ends with the gold answer:
          // the answer's j-th token sits at context + solution − answer + j, predicted by entry one before.
          const oracle = sequences[1]!;
          expect(oracle.tokens).toEqual([...context, ...student.tokenizer.encode(problem.solution, 'test')]);
          const goldStart = context.length + problem.solution.length - problem.answer.length;
          const byHand =
            problem.answer
              .split('')
              .map((_, j) => Math.exp(logprobs[open.indexOf(oracle)][goldStart + j - 1]))
              .reduce((a, b) => a + b, 0) / problem.answer.length;
          expect(score[1]).toBeCloseTo(byHand, 12);
          const best = score[0] > score[1] ? texts[0] : texts[1];
          const traces = group.rollouts.flatMap((rollout, i) => (rollout.expertTokens ? [i] : []));
          expect(traces).toHaveLength(1);
          expect(group.completions[traces[0]]).toBe(best);
          expect(group.rewards[traces[0]]).toBe(1); // raised to 1.0, as the authors
          if (score[0] !== score[1]) decided++;
        }
        expect(decided).toBeGreaterThan(0);
        // The oracle's reasoning is right, so the student expects the gold answer after it.
        // Predicted: the oracle's reasoning is right, demo-cold's 6-digit work is not (it never learned
        // 6-digit addition), so the student expects the gold answer after the oracle's in every group.
        for (let h = 0; h < helped.length; h++) expect(scores[2 * h + 1]).toBeGreaterThan(scores[2 * h]);
        expect(report.metrics['ampo/selected/oracle']).toBe(helped.length);
        const mean = scores.reduce((a, b) => a + b, 0) / scores.length;
        // float32 forwards over differently batched sequences agree to ~1e-7.
        expect(report.metrics['ampo/comprehension_mean']).toBeCloseTo(mean, 5);
      },
      sixDigits,
    );
  }, 30_000);

  it('a teacher that throws costs only its own solutions; the step and the other candidates go on', async () => {
    const pool = [demoTeacher, { name: 'broken', checkpoint: 'examples/checkpoints/demo-cold' }];
    await withContext({ oracle: true }, { pool }, async (ctx) => {
      const broken = teachersOf(ctx)!.teachers!.backend('broken');
      broken.sample = async () => {
        throw new Error('teacher process died');
      };
      const report = await rlStep(ctx, 1, 1e-4);
      const triggered = report.metrics['ampo/triggered'];
      expect(triggered).toBeGreaterThan(0);
      expect(report.metrics['ampo/teacher_failures']).toBe(triggered);
      expect(report.metrics['teacher/failures']).toBe(1);
      expect(report.metrics['ampo/teacher_solutions']).toBe(2 * triggered); // demo + oracle
      expect(report.metrics['ampo/selected/broken']).toBeUndefined();
      expect(report.metrics['ampo/selected']).toBeGreaterThanOrEqual(triggered); // the oracle at least
      // The next step runs normally.
      const next = await rlStep(ctx, 2, 1e-4);
      expect(next.metrics['ampo/teacher_failures']).toBe(next.metrics['ampo/triggered']);
    });
  }, 30_000);

  it('a teacher that times out is skipped the same way', async () => {
    const pool = [demoTeacher, { name: 'slow', checkpoint: 'examples/checkpoints/demo-cold' }];
    const ctx = await buildContext(config({ oracle: true }, { pool, timeoutMs: 2000 }));
    try {
      teachersOf(ctx)!.teachers!.backend('slow').sample = () => new Promise(() => {});
      const report = await rlStep(ctx, 1, 1e-4);
      expect(report.metrics['ampo/teacher_failures']).toBe(report.metrics['ampo/triggered']);
      expect(report.metrics['ampo/selected/slow']).toBeUndefined();
    } finally {
      await ctx.policy.close?.();
      await teachersOf(ctx)?.teachers?.close();
    }
  }, 30_000);
});

describe('ampo setup', () => {
  it('refuses a run without a teacher pool before any model is loaded', async () => {
    const attempt = buildContext(
      config({}, undefined, { init: { checkpoint: 'examples/checkpoints/ladder-cold' } }),
    );
    await expect(attempt).rejects.toThrow(ConfigError);
    await expect(attempt).rejects.toThrow("guidance 'ampo' needs teachers");
  });

  it('refuses an option naming a teacher that is not in the pool', async () => {
    const attempt = buildContext(config({ teachers: ['nobody'] }, { pool: [demoTeacher] }));
    await expect(attempt).rejects.toThrow("teacher 'nobody' is not in teacher.pool (demo)");
  });
});

describe('examples/ladder-ampo.yaml', () => {
  it('passes every setup check and runs one small real step with its own settings', async () => {
    const example = loadConfigFile(rlConfigSchema, 'examples/ladder-ampo.yaml');
    validateRlConfig(example);
    const ctx = await buildContext({
      ...example,
      tasks: [{ ...example.tasks[0], difficulties: [7, 8] }],
      poolSize: 3,
      rollout: { ...example.rollout, groupSize: 4 },
      train: { ...example.train, batchSize: 2 },
      policy: { workers: 1 },
    });
    try {
      expect(ctx.guidance.name).toBe('ampo');
      expect(ctx.guidance.expertLoss).toEqual({ name: 'policy-shaping', options: { gamma: 0.1 } });
      const report = await rlStep(ctx, 1, example.train.learningRate);
      // 7-8 digits are out of the student's reach: every group is helped, the oracle at least.
      expect(report.metrics['ampo/triggered']).toBe(2);
      expect(report.metrics['ampo/selected']).toBeGreaterThanOrEqual(2);
      expect(report.metrics['ampo/teacher_failures']).toBe(0);
    } finally {
      await ctx.policy.close?.();
      await teachersOf(ctx)?.teachers?.close();
    }
  }, 30_000);
});
