// Learning-rate schedules: linear warmup from 0, then constant, cosine or linear decay to a floor.
import { z } from 'zod';

export const scheduleSchema = z.strictObject({
  /** Peak learning rate; 0 makes a no-update control run (every step samples, grades and computes its
   * loss as usual, and the weights stay bit-identical: issue 28's zero-learning-rate control). */
  learningRate: z.number().nonnegative(),
  warmupSteps: z.number().int().nonnegative().default(0),
  decay: z.enum(['constant', 'cosine', 'linear']).default('constant'),
  /** Floor reached at the last step, as a fraction of learningRate. */
  minLearningRateRatio: z.number().min(0).max(1).default(0.1),
});

export type Schedule = z.output<typeof scheduleSchema>;

/** Learning rate at 1-based `step` of `totalSteps`. */
export function learningRateAt(schedule: Schedule, step: number, totalSteps: number): number {
  const { learningRate, warmupSteps, decay, minLearningRateRatio } = schedule;
  if (warmupSteps > 0 && step <= warmupSteps) return (learningRate * step) / warmupSteps;
  if (decay === 'constant') return learningRate;
  const span = Math.max(1, totalSteps - warmupSteps);
  const progress = Math.min(1, Math.max(0, (step - warmupSteps) / span));
  const floor = learningRate * minLearningRateRatio;
  const shape = decay === 'cosine' ? 0.5 * (1 + Math.cos(Math.PI * progress)) : 1 - progress;
  return floor + (learningRate - floor) * shape;
}
