import { describe, expect, it } from 'vitest';
import { runAdvice } from './advice.ts';

describe('runAdvice', () => {
  const balanced = { name: 'balanced', perProblemEvidence: true };

  it('warns when a per-problem selector will rarely see a problem twice', () => {
    expect(runAdvice({ selector: balanced, poolSize: 4000, steps: 120, batchSize: 16 })).toEqual([
      "selector 'balanced' acts on each problem's own outcomes, but 120 steps × 16 problems draw each of the 4000 pool problems 0.5 times on average, so most are never seen again and it will behave much like uniform; use poolSize ≤ 960 or more steps",
    ]);
  });

  it('is silent for enough revisits and for selectors that pool evidence over levels', () => {
    expect(runAdvice({ selector: balanced, poolSize: 320, steps: 120, batchSize: 16 })).toEqual([]);
    expect(runAdvice({ selector: { name: 'sec' }, poolSize: 4000, steps: 120, batchSize: 16 })).toEqual([]);
  });
});
