import { describe, expect, it } from 'vitest';
import { benchmarkSelectors } from './selector-bench.ts';

describe('benchmarkSelectors', () => {
  it('times select + observe per step for each selector on a small pool', () => {
    const results = benchmarkSelectors({
      poolSize: 500,
      steps: 2,
      warmupSteps: 1,
      batchSize: 8,
      names: ['uniform', 'sec'],
    });
    expect(results.map((result) => result.name)).toEqual(['uniform', 'sec']);
    for (const result of results) {
      expect(result.poolSize).toBe(500);
      expect(result.microsecondsPerStep).toBeGreaterThan(0);
      expect(result.microsecondsPerStep).toBeCloseTo(
        result.selectMicroseconds + result.observeMicroseconds,
        6,
      );
    }
  });
});
