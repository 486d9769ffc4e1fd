// The config of `curricula distill` and its checks before any model is loaded: the student (and, for
// `source: teacher`, the teacher) checkpoints exist and share one tokenizer, the template encodes, every
// problem has a worked solution, and every training sequence fits the student's context.
import { z } from 'zod';
import { ConfigError } from '../core/errors.ts';
import type { Problem } from '../core/problem.ts';
import { Rng } from '../core/rng.ts';
import { policyBlockSchema } from '../policy/parallel-options.ts';
import { resolveCheckpoint } from '../runs/resolve-checkpoint.ts';
import { RUN_NAME_PATTERN, RUN_NAME_RULE } from '../runs/run-name.ts';
import { promptTokens, sequenceTokens } from '../tasks/format.ts';
import { mixEntrySchema, ProblemMix, validateMix } from '../tasks/problem-mix.ts';
import { heldOutEvalSchema, optimizerSchema } from '../training/pretrain-config.ts';
import type { RlConfig } from '../training/rl/config.ts';
import { type PolicyLimits, policyLimits } from '../training/rl/level-fit.ts';
import { rltTemplateSchema, studentSequence, teacherPromptText, validateTemplate } from './template.ts';
import { readTokenizerJson } from './tokenizer-json.ts';

export const distillSources = ['teacher', 'solutions', 'answers'] as const;
export type DistillSource = (typeof distillSources)[number];

const samplingSchema = z.strictObject({
  /** The teacher's sampling temperature (authors' teacher generation temperature: 0.7). */
  temperature: z.number().positive().default(0.7),
  topP: z.number().gt(0).max(1).default(1),
  /** Explanation length cap (also bounded by the teacher's context). */
  maxTokens: z.number().int().positive().default(64),
});

/** Schema of a distill config (`curricula distill --config`): train a student on a teacher's explanations. */
export const distillConfigSchema = z.strictObject({
  name: z.string().regex(RUN_NAME_PATTERN, RUN_NAME_RULE).default('distill'),
  runsDir: z.string().default('runs'),
  seed: z.number().int().default(0),
  /** The student to train (run, checkpoint or model directory). */
  student: z.strictObject({ checkpoint: z.string() }),
  /** The teacher that writes the explanations (needed with source: teacher). */
  teacher: z.strictObject({ checkpoint: z.string() }).optional(),
  /**
   * teacher: question → explanation + solution; solutions: question → worked solution (baseline);
   * answers: question → the answer line only (the raw data when a dataset has answers and no reasoning).
   */
  source: z.enum(distillSources).default('teacher'),
  /** The problems to distill on are drawn from this mix (never from its held-out partition). */
  tasks: z.array(mixEntrySchema).min(1),
  /** Distinct problems in the distillation set (one explanation each). */
  poolSize: z.number().int().positive().default(200),
  sampling: samplingSchema.default(samplingSchema.parse({})),
  /** The teacher's prompt and the student's text (template.ts; the same formats as `curricula teach`). */
  template: rltTemplateSchema,
  train: optimizerSchema.extend({
    steps: z.number().int().positive(),
    /** Sequences per optimiser step. */
    batchSize: z.number().int().positive().default(32),
  }),
  eval: heldOutEvalSchema.default(heldOutEvalSchema.parse({})),
  policy: policyBlockSchema.optional(),
});
export type DistillConfig = z.output<typeof distillConfigSchema>;

/** Seed offset of the distillation set (same offset as the RL pool, so `teach` and `distill` on the same
 * tasks and seed see the same problems). */
const poolSeedOffset = 7919;

export function distillPool(config: DistillConfig): Problem[] {
  return new ProblemMix(config.tasks).pool(config.poolSize, new Rng(config.seed + poolSeedOffset));
}

export interface DistillPlan {
  studentPath: string;
  teacherPath: string | null;
  student: PolicyLimits;
  pool: Problem[];
}

export function validateDistillConfig(config: DistillConfig): DistillPlan {
  validateMix(config.tasks, 'tasks');
  const resolve = (path: string, key: string) => {
    try {
      return resolveCheckpoint(path).modelPath;
    } catch (error) {
      throw new ConfigError(`${key}: ${(error as Error).message}`);
    }
  };
  const studentPath = resolve(config.student.checkpoint, 'student.checkpoint');
  // policyLimits reads a checkpoint's tokenizer and context length without loading its weights.
  const limitsOf = (checkpoint: string, path: string) =>
    policyLimits({ init: { checkpoint } } as RlConfig, path);
  const student = limitsOf(config.student.checkpoint, studentPath);
  let teacherPath: string | null = null;
  let teacher: PolicyLimits | null = null;
  if (config.source === 'teacher') {
    if (!config.teacher) {
      throw new ConfigError('source teacher needs teacher.checkpoint (or use --source solutions)');
    }
    teacherPath = resolve(config.teacher.checkpoint, 'teacher.checkpoint');
    if (
      readTokenizerJson(teacherPath, 'teacher.checkpoint') !==
      readTokenizerJson(studentPath, 'student.checkpoint')
    ) {
      throw new ConfigError(
        `teacher.checkpoint ${config.teacher.checkpoint} has a different tokenizer from student.checkpoint ${config.student.checkpoint}: the student is trained on the teacher's tokens`,
      );
    }
    teacher = limitsOf(config.teacher.checkpoint, teacherPath);
    validateTemplate(config.template, teacher.tokenizer);
  }
  const pool = distillPool(config);
  for (const problem of pool) {
    if (problem.solution.length === 0) {
      throw new ConfigError(`problem ${problem.id} has no worked solution: distill trains the student on it`);
    }
    if (teacher) {
      const prompt = promptTokens(teacher.tokenizer, {
        ...problem,
        prompt: teacherPromptText(config.template, problem),
      });
      const fixed = studentSequence(student.tokenizer, config.template, problem, []).tokens.length + 1;
      if (
        prompt.length + 1 > teacher.contextLength ||
        fixed + config.sampling.maxTokens > student.contextLength
      ) {
        throw new ConfigError(
          `problem ${problem.id}: the teacher's prompt (${prompt.length} tokens of ${teacher.contextLength}) or the student's text with an explanation of up to sampling.maxTokens ${config.sampling.maxTokens} (${fixed} + ${config.sampling.maxTokens} of ${student.contextLength}) does not fit; lower sampling.maxTokens or the difficulties`,
        );
      }
    } else if (
      sequenceTokens(student.tokenizer, problem, problem.solution).tokens.length > student.contextLength
    ) {
      throw new ConfigError(
        `problem ${problem.id}: its worked solution does not fit the student's context of ${student.contextLength}`,
      );
    }
  }
  return { studentPath, teacherPath, student, pool };
}
