// Learning-rate schedules: constant, or linear warmup followed by cosine or linear decay to
// `minLearningRate` (the nanoGPT schedule). Steps count from 1 (the first optimizer step).
import { z } from 'zod';
import { ConfigError } from '../core/errors.ts';

export const learningRateScheduleSchema = z
  .object({
    kind: z.enum(['constant', 'cosine', 'linear']).default('constant'),
    learningRate: z.number().positive(),
    /** Steps of linear warmup from learningRate/warmupSteps up to learningRate. */
    warmupSteps: z.number().int().min(0).default(0),
    /** Step at which decay reaches minLearningRate (and stays there); needed for cosine/linear. */
    totalSteps: z.number().int().min(1).optional(),
    minLearningRate: z.number().min(0).default(0),
  })
  .strict()
  .refine((schedule) => schedule.kind === 'constant' || schedule.totalSteps !== undefined, {
    message: 'totalSteps is required for cosine and linear decay',
    path: ['totalSteps'],
  });

export type LearningRateSchedule = z.infer<typeof learningRateScheduleSchema>;

export function parseLearningRateSchedule(value: unknown): LearningRateSchedule {
  const result = learningRateScheduleSchema.safeParse(value);
  if (!result.success) {
    const problems = result.error.issues.map(
      (issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`,
    );
    throw new ConfigError(`invalid learning-rate schedule: ${problems.join('; ')}`);
  }
  return result.data;
}

/** Learning rate at optimizer step `step` (1-based). */
export function learningRateAt(schedule: LearningRateSchedule, step: number): number {
  const { kind, learningRate, warmupSteps, totalSteps, minLearningRate } = schedule;
  if (warmupSteps > 0 && step <= warmupSteps) return (learningRate * step) / warmupSteps;
  if (kind === 'constant' || totalSteps === undefined) return learningRate;
  const decaySteps = totalSteps - warmupSteps;
  if (decaySteps <= 0 || step >= totalSteps) return minLearningRate;
  const progress = (step - warmupSteps) / decaySteps; // in (0, 1)
  const factor = kind === 'cosine' ? 0.5 * (1 + Math.cos(Math.PI * progress)) : 1 - progress;
  return minLearningRate + (learningRate - minLearningRate) * factor;
}
