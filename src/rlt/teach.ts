// `curricula teach`: trains an RLT teacher (Cetin, Zhao & Tang, "Reinforcement Learning Teachers of Test
// Time Scaling", Sakana AI 2025; code SakanaAI/RLT @86a3f5c) with the RL loop of `curricula train`.
// The POLICY is the teacher: its prompt is the question plus the reference solution (template.ts), its
// completion an explanation, and its reward the RLT reward (reward.ts) computed from a FROZEN student's
// log-probs (student-reward.ts). Everything else — selector, GRPO advantages, loss, checkpoints, run
// store, held-out evaluation, crash-safe resume — is the train loop's (src/training/rl/train.ts), driven
// through its run kind: this file gives the schema, the checks, the context and the rlt/* metrics.
//
// The teacher-prompt "guidance" below only rewrites prompts; it keeps no state (resume restores the
// teacher's weights, optimizer, selector and RNG through the train loop's checkpoint; the student is
// frozen and reloaded from student.checkpoint).
//
// GRPO (authors: trainers/grpo.py, A = (r − mean)/(std + 1e-4), torch.std = unbiased): our `grpo`
// estimator is the same with std 'sample' (Bessel-corrected, its default); its ε defaults to 1e-6, so the
// examples set `algorithm.advantage.options.epsilon: 1e-4` to match the authors.
//
// Deviations (docs/teachers.md lists them all): no teacher SFT warm-up stage of its own (the authors SFT
// the teacher on formatted explanations first; here `init` is any checkpoint, e.g. the pretrained
// solver); the authors' reference-model mix-up (α 0.9 every 32 steps) is not done; the embedded models
// are tiny char-level transformers, not 7B; log-probs at temperature 1 (student-reward.ts).
import type { Guidance } from '../guidance/guidance.ts';
import { policyBackendOf } from '../training/policy-backends.ts';
import { closeComponents } from '../training/rl/component-lifecycle.ts';
import type { RlConfig } from '../training/rl/config.ts';
import type { RlContext } from '../training/rl/context.ts';
import { buildContext } from '../training/rl/setup.ts';
import type { StepReport } from '../training/rl/step.ts';
import { type RlRunKind, type TrainOptions, type TrainResult, train } from '../training/rl/train.ts';
import { createRltReward } from './student-reward.ts';
import {
  asTeachConfig,
  resumedTeachConfig,
  type TeachConfig,
  teachConfigSchema,
  validateTeachConfig,
} from './teach-config.ts';
import { type RltTemplate, teacherPromptText } from './template.ts';

/** Every attempt's prompt is the teacher's: question + reference solution (no forced prefix). */
export function teacherPromptGuidance(template: RltTemplate): Guidance {
  return {
    name: 'rlt-teacher-prompt',
    plan: (problems) =>
      problems.map((problem) => ({
        problem,
        prompt: teacherPromptText(template, problem),
        prefix: '',
        guided: false,
      })),
    observe: () => {},
    state: () => null,
    load: () => {},
    metrics: () => ({}),
  };
}

export async function buildTeachContext(config: RlConfig, modelPath?: string): Promise<RlContext> {
  const teach = asTeachConfig(config);
  const { studentPath } = validateTeachConfig(teach);
  const ctx = await buildContext(config, modelPath);
  try {
    const student = await policyBackendOf(config.policy).build({
      policy: config.policy,
      checkpoint: studentPath,
      init: studentPath,
      create: () => Promise.reject(new Error('the student is always loaded from student.checkpoint')),
      role: 'student',
    });
    const reward = createRltReward({
      teacher: ctx.policy,
      student,
      template: teach.rlt.template,
      options: teach.rlt,
      maxTokens: config.rollout.maxTokens,
    });
    // The train loop closes the reward however the run ends: that releases the student.
    let closed = false;
    ctx.reward = {
      ...reward,
      close: async () => {
        if (closed) return;
        closed = true;
        await student.close?.();
      },
    };
    ctx.guidance = teacherPromptGuidance(teach.rlt.template);
    return ctx;
  } catch (error) {
    await ctx.policy.close?.();
    await ctx.reference?.close?.();
    await closeComponents(ctx.components);
    throw error;
  }
}

/**
 * rlt/r_ss, rlt/r_kl, rlt/format_miss (and the mean solution log-prob and KL) over the step's completions,
 * and rlt/distinct: the mean over groups of distinct explanations / group size. 1/G means every explanation
 * of a problem is the same string: the collapse to a constant the ladder experiment found
 * (experiments/ladder-teachers), which the reward alone does not show (it rose while the teachers collapsed).
 */
export function rltStepMetrics(report: StepReport): Record<string, number> {
  const names: Record<string, string> = {
    r_ss: 'rlt/r_ss',
    r_kl: 'rlt/r_kl',
    format_miss: 'rlt/format_miss',
    solution_logprob: 'rlt/solution_logprob',
    kl: 'rlt/kl',
  };
  const sums: Record<string, number> = {};
  let count = 0;
  for (const group of report.groups) {
    for (const result of group.results) {
      if (result.error) continue;
      count++;
      for (const [component, metric] of Object.entries(names)) {
        sums[metric] = (sums[metric] ?? 0) + (result.components[component] ?? 0);
      }
    }
  }
  if (count === 0) return {};
  const distinct = report.groups.map((group) => new Set(group.completions).size / group.completions.length);
  return {
    ...Object.fromEntries(Object.entries(sums).map(([metric, sum]) => [metric, sum / count])),
    'rlt/distinct': distinct.reduce((total, value) => total + value, 0) / distinct.length,
  };
}

export const teachRunKind: RlRunKind = {
  parse: (config) => teachConfigSchema.parse(config),
  validate: (config) => {
    validateTeachConfig(asTeachConfig(config));
  },
  build: buildTeachContext,
  resume: resumedTeachConfig,
  stepMetrics: rltStepMetrics,
  // the held-out evaluation is the teacher as a solver: a run directory resolves to the LATEST teacher
  tracksBest: false,
};

export function teach(
  config: TeachConfig | null,
  options: Omit<TrainOptions, 'kind'> = {},
): Promise<TrainResult> {
  return train(config, { ...options, kind: teachRunKind });
}
