// Setting up a run's teachers (the `teacher` block, teacher-config.ts, and the scorer of a scaffold with
// `privilegedScorer`, privileged-hint): every check that needs no model runs first, so a missing
// checkpoint, a tokenizer that differs from the student's, an unknown teacher name or a conflict is
// refused before any model is loaded or any file written. Then the teachers are built through the
// policy-backend registry, like the KL reference (role 'teacher'), and checked once more on their built
// tokenizers (a remote teacher's is known only then); the run has not written anything yet.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from '../../../core/errors.ts';
import type { PolicyBackend } from '../../../core/policy.ts';
import type { Problem } from '../../../core/problem.ts';
import type { Guidance } from '../../../guidance/guidance.ts';
import { suiteTokenizer } from '../../../policy/tokenizer.ts';
import { configCheckpointModelPath, resolveCheckpoint } from '../../../runs/resolve-checkpoint.ts';
import { TeacherPool } from '../../../teachers/teacher-pool.ts';
import { canonicalJson, tokenizerMismatch } from '../../../teachers/tokenizer-match.ts';
import { type PolicyBackendRequest, policyBackendOf, policyBackends } from '../../policy-backends.ts';
import type { RlConfig } from '../../rl/config.ts';
import type { Distillation } from './distillation.ts';
import { defaultTeacherTimeoutMs, type TeacherEntry } from './teacher-config.ts';

/** Self-teacher names of privileged-hint; a pool teacher may not take them. */
const selfTeachers = ['initial', 'current'] as const;

/** Checks the teacher block without loading a model (validateRlConfig calls it). */
export function validateTeacherBlock(config: RlConfig): void {
  const block = config.teacher;
  if (!block) return;
  const names = block.pool.map((entry) => entry.name);
  const duplicate = names.find((name, index) => names.indexOf(name) !== index);
  if (duplicate) throw new ConfigError(`teacher.pool: the name '${duplicate}' is used twice`);
  const reserved = names.find((name) => (selfTeachers as readonly string[]).includes(name));
  if (reserved) {
    throw new ConfigError(
      `teacher.pool: '${reserved}' is reserved (privileged-hint's self-teacher); rename it`,
    );
  }
  if (block.opd) {
    if (names.length === 0) throw new ConfigError('teacher.opd needs a teacher in teacher.pool');
    if (block.opd.teacher !== undefined && !names.includes(block.opd.teacher)) {
      throw new ConfigError(
        `teacher.opd.teacher '${block.opd.teacher}' is not in teacher.pool (${names.join(', ')})`,
      );
    }
  }
  const student = studentTokenizerJson(config);
  block.pool.forEach((entry, index) => {
    const where = `teacher.pool.${index} (${entry.name})`;
    if (entry.policy) {
      if ((entry.policy.backend ?? 'embedded') === 'embedded') {
        throw new ConfigError(`${where}: an embedded teacher is given by checkpoint, not by a policy block`);
      }
      try {
        policyBackendOf(entry.policy).validate({ policy: entry.policy });
      } catch (error) {
        throw new ConfigError(`${where}: ${(error as Error).message}`);
      }
      return;
    }
    const modelPath = teacherModelPath(entry, where);
    if (student === null) return;
    const teacher = readTokenizerJson(modelPath, where);
    if (canonicalJson(teacher) !== canonicalJson(student.json)) {
      throw new ConfigError(
        `${where}: its tokenizer differs from the student's (${student.source}); on-policy distillation compares log-probs token by token, so a teacher must share the student's tokenizer`,
      );
    }
  });
}

/** Checks a scaffold's scorer against the config (before any model is loaded). */
export function validatePrivilegedScorer(config: RlConfig, guidance: Guidance): void {
  const scorer = guidance.privilegedScorer;
  if (!scorer) return;
  if (config.teacher?.opd) {
    throw new ConfigError(
      `guidance '${guidance.name}' brings its own distillation term; remove teacher.opd (one teacher term per run)`,
    );
  }
  if (scorer.teacher === 'initial' && !config.init) {
    throw new ConfigError(
      `guidance '${guidance.name}' options: teacher 'initial' is a frozen copy of init.checkpoint; give init.checkpoint or choose teacher 'current'`,
    );
  }
  const names = config.teacher?.pool.map((entry) => entry.name) ?? [];
  if (!(selfTeachers as readonly string[]).includes(scorer.teacher) && !names.includes(scorer.teacher)) {
    throw new ConfigError(
      `guidance '${guidance.name}' options: teacher '${scorer.teacher}' is neither initial, current nor a teacher.pool name (${names.join(', ') || 'pool empty'})`,
    );
  }
}

export interface BuiltTeachers {
  teachers: TeacherPool | null;
  distillation: Distillation | null;
}

/**
 * Builds the pool (and the self-teacher of a privileged scorer) and the distillation phase's settings.
 * `request`: what setup passes the policy backend (init path, fresh-model factory).
 */
export async function buildTeachers(
  config: RlConfig,
  guidance: Guidance,
  policy: PolicyBackend,
  pool: readonly Problem[],
  request: Omit<PolicyBackendRequest, 'checkpoint' | 'role'>,
): Promise<BuiltTeachers> {
  const block = config.teacher;
  const scorer = guidance.privilegedScorer;
  const members: [string, PolicyBackend][] = [];
  const borrowed = new Set<string>();
  const probes = [...new Set(pool.slice(0, 64).flatMap((problem) => [problem.prompt, problem.solution]))];
  try {
    for (const entry of block?.pool ?? []) {
      const backend = await buildTeacher(config, entry, request);
      members.push([entry.name, backend]);
      const mismatch = tokenizerMismatch(policy.tokenizer, backend.tokenizer, probes);
      if (mismatch !== null) {
        throw new ConfigError(
          `teacher '${entry.name}': its tokenizer differs from the student's (${mismatch}); a teacher must share the student's tokenizer`,
        );
      }
    }
    if (scorer?.teacher === 'initial') {
      members.push([
        'initial',
        await policyBackendOf(config.policy).build({ ...request, checkpoint: request.init, role: 'teacher' }),
      ]);
    } else if (scorer?.teacher === 'current') {
      members.push(['current', policy]);
      borrowed.add('current');
    }
  } catch (error) {
    for (const [name, backend] of members) if (!borrowed.has(name)) await backend.close?.();
    throw error;
  }
  if (members.length === 0) return { teachers: null, distillation: null };
  const teachers = new TeacherPool(members, block?.timeoutMs ?? defaultTeacherTimeoutMs, borrowed);
  let distillation: Distillation | null = null;
  if (scorer) {
    distillation = { teachers, teacher: scorer.teacher, options: scorer.opd, privileged: true };
  } else if (block?.opd) {
    const { teacher, ...options } = block.opd;
    distillation = { teachers, teacher: teacher ?? teachers.names[0], options, privileged: false };
  }
  return { teachers, distillation };
}

/** An embedded teacher through the embedded factory (as the reference), a remote one through its own. */
function buildTeacher(
  config: RlConfig,
  entry: TeacherEntry,
  request: Omit<PolicyBackendRequest, 'checkpoint' | 'role'>,
): Promise<PolicyBackend> {
  if (entry.policy) {
    return policyBackendOf(entry.policy).build({
      ...request,
      policy: entry.policy,
      checkpoint: null,
      init: null,
      role: 'teacher',
    });
  }
  const studentEmbedded = (config.policy?.backend ?? 'embedded') === 'embedded';
  return policyBackends.get('embedded').build({
    ...request,
    policy: studentEmbedded ? config.policy : undefined,
    checkpoint: teacherModelPath(entry, `teacher '${entry.name}'`),
    role: 'teacher',
  });
}

function teacherModelPath(entry: TeacherEntry, where: string): string {
  return configCheckpointModelPath(entry.checkpoint!, where);
}

/** The embedded student's tokenizer.json (init checkpoint's, or the fresh model's); null for a remote student. */
function studentTokenizerJson(config: RlConfig): { json: unknown; source: string } | null {
  if ((config.policy?.backend ?? 'embedded') !== 'embedded') return null;
  if (!config.init) return { json: suiteTokenizer().toJSON(), source: 'the fresh model' };
  const modelPath = resolveCheckpoint(config.init.checkpoint).modelPath;
  return { json: readTokenizerJson(modelPath, 'init.checkpoint'), source: config.init.checkpoint };
}

function readTokenizerJson(modelPath: string, where: string): unknown {
  try {
    return JSON.parse(readFileSync(join(modelPath, 'tokenizer.json'), 'utf8'));
  } catch (error) {
    throw new ConfigError(`${where}: cannot read ${modelPath}/tokenizer.json: ${(error as Error).message}`);
  }
}
