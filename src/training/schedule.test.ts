import { describe, expect, it } from 'vitest';
import { learningRateAt, scheduleSchema } from './schedule.ts';

describe('learningRateAt', () => {
  it('warms up linearly then decays by cosine to the floor', () => {
    const schedule = scheduleSchema.parse({
      learningRate: 1,
      warmupSteps: 10,
      decay: 'cosine',
      minLearningRateRatio: 0.1,
    });
    expect(learningRateAt(schedule, 5, 110)).toBeCloseTo(0.5);
    expect(learningRateAt(schedule, 10, 110)).toBeCloseTo(1);
    // Halfway through the decay: floor + (1 - floor) * 0.5 = 0.55.
    expect(learningRateAt(schedule, 60, 110)).toBeCloseTo(0.55);
    expect(learningRateAt(schedule, 110, 110)).toBeCloseTo(0.1);
  });

  it('decays linearly and stays constant when asked', () => {
    const linear = scheduleSchema.parse({ learningRate: 2, decay: 'linear', minLearningRateRatio: 0 });
    expect(learningRateAt(linear, 25, 100)).toBeCloseTo(1.5);
    const constant = scheduleSchema.parse({ learningRate: 2 });
    expect(learningRateAt(constant, 99, 100)).toBe(2);
  });
});
