// privileged-hint in a real RL step on ladder-cold (workers 1), teacher 'initial' (a frozen copy of
// init.checkpoint): the policy samples from the bare prompt (group context = [BOS] + prompt, no hint
// token in it), and every sampled token's weight is −coef·(lp_teacher − lp_sampler)/N with lp_teacher
// from an independent forward of the init checkpoint over [BOS] + prompt + hint + completion, the hint
// cut from its end so that the group's longest completion fits the 128-token context (teacher/hint_cut).
// Also: resuming from a trained checkpoint, the 'initial' teacher is still init.checkpoint.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Datum, PolicyBackend } from '../core/policy.ts';
import { EmbeddedBackend } from '../policy/embedded-backend.ts';
import { promptTokens } from '../tasks/format.ts';
import { teachersOf } from '../training/components/teachers/component.ts';
import { rlConfigSchema } from '../training/rl/config.ts';
import { buildContext } from '../training/rl/setup.ts';
import { rlStep } from '../training/rl/step.ts';

const config = (options: object = {}) =>
  rlConfigSchema.parse({
    seed: 5,
    init: { checkpoint: 'examples/checkpoints/ladder-cold' },
    tasks: [{ task: 'addition', difficulties: [7] }],
    poolSize: 3,
    guidance: { name: 'privileged-hint', options },
    rollout: { groupSize: 3, maxTokens: 96 },
    algorithm: {
      advantage: { name: 'dr-grpo' },
      loss: { name: 'importance-sampling', options: { aggregation: 'token-mean' } },
    },
    train: { steps: 2, batchSize: 3, learningRate: 1e-4 },
    policy: { workers: 1 },
  });

let init: PolicyBackend;
beforeAll(async () => {
  init = await EmbeddedBackend.load('examples/checkpoints/ladder-cold');
});
afterAll(async () => {
  await init.close?.();
});

describe('privileged-hint step', () => {
  it('scores the bare-prompt samples under prompt + hint with the initial policy', async () => {
    const ctx = await buildContext(config());
    const sent: Datum[][] = [];
    const forwardBackward = ctx.policy.forwardBackward.bind(ctx.policy);
    ctx.policy.forwardBackward = async (data, loss) => {
      sent.push(data);
      return forwardBackward(data, loss);
    };
    try {
      const report = await rlStep(ctx, 1, 1e-4);
      const { tokenizer } = ctx.policy;
      const n = report.groups.flatMap((group) => group.rollouts).reduce((sum, r) => sum + r.tokens.length, 0);
      let cut = 0;
      let checked = 0;
      for (const group of report.groups) {
        const { problem, privilegedContext } = group.attempt;
        // The student's input is the bare prompt: the hint is nowhere in it.
        expect(group.context).toEqual(promptTokens(tokenizer, problem));
        expect(group.attempt.prompt).toBe(problem.prompt);
        expect(privilegedContext).toBeDefined();
        expect(privilegedContext!.startsWith('\n\n## Hint.')).toBe(true);
        const longest = Math.max(...group.rollouts.map((rollout) => rollout.tokens.length));
        // Char tokenizer: [BOS] + prompt + hint is 1 + characters; cut to leave the longest completion room.
        const room = 128 - longest - 1 - problem.prompt.length;
        const hint = privilegedContext!.slice(0, Math.min(privilegedContext!.length, room));
        if (hint.length < privilegedContext!.length) cut++;
        const teacherContext = tokenizer.encode(problem.prompt + hint, 'test');
        teacherContext.unshift(tokenizer.bos);
        for (const rollout of group.rollouts) {
          const [teacherRow] = await init.forward([[...teacherContext, ...rollout.tokens]]);
          const datum = sent[0].find(
            (candidate) => candidate.tokens.join() === [...group.context, ...rollout.tokens].join(),
          )!;
          const weights = datum.weights.slice(group.context.length - 1);
          rollout.tokens.forEach((_, t) => {
            const teacher = teacherRow[teacherContext.length - 1 + t];
            // taskAdvantage off (SDFT): the teacher term alone. Compared as advantages (−w·N): float32
            // forwards of a batch and of one sequence differ by ~1e-6 nats.
            expect(-weights[t] * n).toBeCloseTo(teacher - rollout.logprobs[t], 4);
            checked++;
          });
        }
      }
      expect(checked).toBe(n);
      expect(cut).toBeGreaterThan(0);
      expect(report.metrics['teacher/hint_cut']).toBe(cut);
      expect(report.metrics['guidance/privileged_frac']).toBe(1);
      // Not a sign claim: ladder-cold never saw a hint in its prompts, and at 7 digits it is far LESS
      // sure of its own tokens after one (teacher/kl ≈ +7.5 nats here).
      expect(Number.isFinite(report.metrics['teacher/kl'])).toBe(true);
    } finally {
      await ctx.policy.close?.();
      await teachersOf(ctx)?.teachers?.close();
    }
  }, 60_000);

  it('resumed from a trained checkpoint, teacher initial is still init.checkpoint', async () => {
    const trained = await buildContext(config());
    const dir = mkdtempSync(join(tmpdir(), 'privileged-trained-'));
    try {
      await rlStep(trained, 1, 1e-2);
      await trained.policy.save(dir);
    } finally {
      await trained.policy.close?.();
      await teachersOf(trained)?.teachers?.close();
    }
    const resumed = await buildContext(config(), dir);
    try {
      const sequence = [1, ...resumed.policy.tokenizer.encode('1234567+7654321\n1+1+0=02', 'test')];
      const [fromTeacher] = await teachersOf(resumed)!.teachers!.score([sequence], { teacher: 'initial' });
      const [fromInit] = await init.forward([sequence]);
      const [fromPolicy] = await resumed.policy.forward([sequence]);
      expect(fromTeacher).toEqual(fromInit);
      expect(fromPolicy).not.toEqual(fromInit);
    } finally {
      await resumed.policy.close?.();
      await teachersOf(resumed)?.teachers?.close();
    }
  }, 60_000);
});
