// The `teacher` block of the train config (issue 13, "Teacher pool"): the teachers of a run and the
// on-policy distillation term that uses them. Strict zod schemas; which backend a remote teacher runs on
// is checked against the policy-backend registry (src/training/policy-backends.ts) when the run is set
// up, like the policy's own.
//
//   teacher:
//     pool:
//       - { name: wide, checkpoint: runs/ladder-wide }        # embedded: a checkpoint, built like the reference
//       - { name: remote, policy: { backend: tinker, tinker: { url: ..., baseModel: ... } } }
//     timeoutMs: 60000        # per teacher call (score or sample)
//     opd: { teacher: wide, coef: 1, discount: 0, taskAdvantage: true }   # absent = no OPD term
import { z } from 'zod';
import { opdOptionsSchema } from '../../../algorithms/opd.ts';
import { rlPolicyBlockSchema } from '../../policy-block.ts';

/** Teacher names are used in metrics and config references: short identifiers. */
const teacherName = z
  .string()
  .regex(/^[a-z0-9][a-z0-9_-]{0,31}$/, 'a teacher name is 1-32 of a-z 0-9 _ - (starting alnum)');

export const teacherEntrySchema = z
  .strictObject({
    name: teacherName,
    /** An embedded teacher: a run, checkpoint or model directory (resolved like init.checkpoint). */
    checkpoint: z.string().min(1).optional(),
    /** A remote teacher: a `policy`-shaped block (backend tinker and its options; tokenizer from `tokenizer`). */
    policy: rlPolicyBlockSchema.optional(),
  })
  .refine((entry) => (entry.checkpoint === undefined) !== (entry.policy === undefined), {
    message: 'give a teacher either checkpoint (embedded) or policy (remote), not both or neither',
  });
export type TeacherEntry = z.output<typeof teacherEntrySchema>;

export const opdBlockSchema = opdOptionsSchema.extend({
  /** The pool teacher that scores the student's tokens (default: the first in the pool). */
  teacher: teacherName.optional(),
});
export type OpdBlock = z.output<typeof opdBlockSchema>;

/** Defaults of a teacher call: 60 s, as generous as a remote forward of a long batch needs. */
export const defaultTeacherTimeoutMs = 60_000;

export const teacherBlockSchema = z.strictObject({
  /** The teachers (frozen policies behind the PolicyBackend contract); names unique. */
  pool: z.array(teacherEntrySchema).default([]),
  /** Per call (teachers.score / teachers.sample): a slower call is abandoned and counted a failure. */
  timeoutMs: z.number().int().positive().default(defaultTeacherTimeoutMs),
  /** On-policy distillation from a pool teacher (src/algorithms/opd.ts); absent = off. */
  opd: opdBlockSchema.optional(),
});
export type TeacherBlock = z.output<typeof teacherBlockSchema>;
