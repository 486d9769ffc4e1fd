// The config of `curricula teach` (the train config plus `student` and `rlt`) and every check that can run
// before a model is loaded: the student checkpoint exists and shares the teacher's tokenizer, the
// templates encode, every pool problem has a worked solution, and the teacher's prompt and the student's
// context (with an explanation of up to rollout.maxTokens tokens) fit their models. A mistake here is a
// ConfigError (one line, exit 2) and nothing is written.
import { z } from 'zod';
import { ConfigError, UserError } from '../core/errors.ts';
import type { Problem } from '../core/problem.ts';
import { resolveCheckpoint } from '../runs/resolve-checkpoint.ts';
import { RunStore } from '../runs/run-store.ts';
import { promptTokens } from '../tasks/format.ts';
import type { ResumedConfig, ResumeRequest } from '../training/resume.ts';
import { type RlConfig, rlConfigSchema } from '../training/rl/config.ts';
import { type PolicyLimits, policyLimits } from '../training/rl/level-fit.ts';
import { loadPool, validateRlConfig } from '../training/rl/setup.ts';
import { rltRewardOptionsSchema } from './reward.ts';
import { rltTemplateSchema, studentSequence, teacherPromptText, validateTemplate } from './template.ts';
import { readTokenizerJson } from './tokenizer-json.ts';

export const rltBlockSchema = rltRewardOptionsSchema.extend({ template: rltTemplateSchema });

/** Schema of a teach config (`curricula teach --config`): an RL train config plus the RLT teacher block. */
export const teachConfigSchema = rlConfigSchema.extend({
  name: rlConfigSchema.shape.name.unwrap().default('teach'),
  /** The frozen student whose understanding rewards the teacher (run, checkpoint or model directory). */
  student: z.strictObject({ checkpoint: z.string() }),
  /** Reward coefficients and quirks (reward.ts) and the prompt formats (template.ts). */
  rlt: rltBlockSchema.default(rltBlockSchema.parse({})),
});
export type TeachConfig = z.output<typeof teachConfigSchema>;

/** The teach-specific parts of a config the RL loop holds as an RlConfig (teach.ts builds it from one). */
export function asTeachConfig(config: RlConfig): TeachConfig {
  return config as TeachConfig;
}

export interface TeachLimits {
  teacher: PolicyLimits;
  student: PolicyLimits;
  studentPath: string;
  pool: Problem[];
}

/** Checks everything that can be checked without loading a model; returns what setup needs. */
export function validateTeachConfig(config: TeachConfig): TeachLimits {
  validateRlConfig(config);
  if (config.guidance.name !== 'identity') {
    throw new ConfigError(
      `guidance '${config.guidance.name}' cannot run in teach: the teacher's prompt is RLT's own (question + solution, rlt.template.teacher); remove the guidance block`,
    );
  }
  if (config.reward.name !== 'verifier' || Object.keys(config.reward.options).length > 0) {
    throw new ConfigError(
      "teach's reward is RLT's (the rlt block: coefficients, template); remove the reward block",
    );
  }
  // ReLIFT (algorithm.relift, merged from another branch) would SFT the teacher on plain question →
  // solution data, not on the teacher's prompt: refused. Read loosely so this file compiles either way.
  if ((config.algorithm as { relift?: { enabled?: boolean } }).relift?.enabled) {
    throw new ConfigError(
      'algorithm.relift cannot run in teach: the teacher is trained on explanations only',
    );
  }
  if (config.selfPlay) {
    throw new ConfigError(
      'selfPlay cannot run in teach: its proposals would train the teacher on problem writing; remove the selfPlay block',
    );
  }
  if ((config.policy?.backend ?? 'embedded') !== 'embedded') {
    throw new ConfigError('teach runs embedded teachers and students only (policy.backend embedded)');
  }
  if (!config.init) {
    throw new ConfigError('teach needs init.checkpoint: the teacher starts from a trained checkpoint');
  }
  const teacherPath = resolveCheckpoint(config.init.checkpoint).modelPath;
  let studentPath: string;
  try {
    studentPath = resolveCheckpoint(config.student.checkpoint).modelPath;
  } catch (error) {
    throw new ConfigError(`student.checkpoint: ${(error as Error).message}`);
  }
  checkSameTokenizer(teacherPath, studentPath, config);
  const teacher = policyLimits(config, teacherPath);
  const student = policyLimits({ ...config, init: { checkpoint: config.student.checkpoint } }, studentPath);
  validateTemplate(config.rlt.template, teacher.tokenizer);
  const { pool } = loadPool(config, teacherPath);
  checkPoolFitsTeach(pool, config, teacher, student);
  return { teacher, student, studentPath, pool };
}

/** RLT scores the teacher's explanation tokens with the student: one tokenizer for both. */
function checkSameTokenizer(teacherPath: string, studentPath: string, config: TeachConfig): void {
  if (
    readTokenizerJson(teacherPath, 'init.checkpoint') !== readTokenizerJson(studentPath, 'student.checkpoint')
  ) {
    throw new ConfigError(
      `student.checkpoint ${config.student.checkpoint} has a different tokenizer from the teacher (init.checkpoint ${config.init?.checkpoint}): the student scores the teacher's explanation tokens, so both must share one tokenizer`,
    );
  }
}

function checkPoolFitsTeach(
  pool: readonly Problem[],
  config: TeachConfig,
  teacher: PolicyLimits,
  student: PolicyLimits,
): void {
  const { template } = config.rlt;
  const maxTokens = config.rollout.maxTokens;
  for (const problem of pool) {
    if (problem.solution.length === 0) {
      throw new ConfigError(
        `problem ${problem.id} has no worked solution: the RLT teacher reads the solution and the student is scored on it`,
      );
    }
    const prompt = promptTokens(teacher.tokenizer, {
      ...problem,
      prompt: teacherPromptText(template, problem),
    });
    if (prompt.length + 1 > teacher.contextLength) {
      throw new ConfigError(
        `problem ${problem.id}: the teacher's prompt (question + solution, ${prompt.length} tokens) leaves no room for an explanation in the teacher's context of ${teacher.contextLength}; lower the difficulties or shorten rlt.template.teacher`,
      );
    }
    const fixed = studentSequence(student.tokenizer, template, problem, []).tokens.length;
    if (fixed + maxTokens > student.contextLength) {
      throw new ConfigError(
        `problem ${problem.id}: the student's context (question + solution, ${fixed} tokens) plus an explanation of up to rollout.maxTokens ${maxTokens} exceeds the student's context of ${student.contextLength}; lower rollout.maxTokens to ${Math.max(0, student.contextLength - fixed)} or the difficulties`,
      );
    }
  }
}

/**
 * A resumed teach run: its stored config (it must be a teach run), with `steps` as its new total. A
 * --config alongside --resume is refused by the CLI (the stored config is the run's).
 */
export function resumedTeachConfig(request: ResumeRequest<RlConfig>): ResumedConfig<RlConfig> {
  const stored = RunStore.readConfig(request.dir);
  const parsed = teachConfigSchema.safeParse(stored);
  if (!parsed.success) {
    throw new UserError(`teach --resume ${request.dir}: it is not a teach run (made by curricula teach)`);
  }
  const config = parsed.data;
  const steps = request.steps ?? config.train.steps;
  if (steps === config.train.steps) return { config };
  return { config: { ...config, train: { ...config.train, steps } }, previousSteps: config.train.steps };
}
