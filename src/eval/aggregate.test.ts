import { describe, expect, it } from 'vitest';
import { additionProblem } from '../tasks/addition.ts';
import { summarizeOutcomes } from './aggregate.ts';
import type { ProblemOutcome } from './evaluate.ts';

function outcome(
  left: string,
  right: string,
  correct: boolean[],
  answers: (string | null)[],
  confidences: (number | null)[],
) {
  return {
    problem: additionProblem(left, right),
    completions: correct.map(() => ''),
    correct,
    answers,
    reasons: correct.map(() => undefined),
    confidences,
  } satisfies ProblemOutcome;
}

describe('summarizeOutcomes', () => {
  it('aggregates pass@k and maj@k per difficulty, and calibration over stated confidences', () => {
    const summary = summarizeOutcomes([
      outcome('2', '3', [true, false], ['5', '6'], [0.9, 0.2]),
      outcome('4', '4', [false, true], ['9', '8'], [null, 0.6]),
      outcome('12', '30', [false, false], [null, '41'], [null, null]),
    ]);
    expect(summary.samples).toBe(2);
    expect(
      summary.groups.map((group) => [group.difficulty, group.problems, group.passAt[1], group.passAt[2]]),
    ).toEqual([
      [1, 2, 0.5, 1],
      [2, 1, 0, 0],
    ]);
    // maj@2 with a 1–1 tie goes to the first answer: right for 2+3, wrong for 4+4.
    expect(summary.groups[0].majAt[2]).toBe(0.5);
    expect(summary.overall.passAt1).toBeCloseTo(1 / 3);
    expect(summary.metrics['eval/pass@2/addition/1']).toBe(1);
    // Pairs (0.9, 1), (0.2, 0), (0.6, 1): Brier (0.01 + 0.04 + 0.16) / 3; ECE (0.1 + 0.2 + 0.4) / 3.
    expect(summary.calibration?.stated).toBe(3);
    expect(summary.calibration?.completions).toBe(6);
    expect(summary.calibration?.brier).toBeCloseTo(0.07);
    expect(summary.calibration?.ece).toBeCloseTo(0.7 / 3);
    // correct {0.9, 0.6} above wrong {0.2}: AUROC 1; the logged metrics carry the same numbers
    expect(summary.calibration?.auroc).toBe(1);
    expect(summary.metrics['eval/calibration/auroc']).toBe(1);
    expect(summary.metrics['eval/calibration/stated']).toBe(0.5);
    expect(summary.metrics['eval/calibration/confidence']).toBeCloseTo(1.7 / 3);
    expect(summary.metrics['eval/calibration/accuracy']).toBeCloseTo(2 / 3);
    // per group: level 1 holds the three stated pairs (4 completions), level 2 states none
    expect(summary.groups[0].calibration).toMatchObject({ stated: 3, completions: 4, auroc: 1 });
    expect(summary.groups[0].calibration?.brier).toBeCloseTo(0.07);
    expect(summary.groups[1].calibration).toBeUndefined();
  });

  it('has no calibration block when no completion states a confidence', () => {
    const summary = summarizeOutcomes([outcome('2', '3', [true], ['5'], [null])]);
    expect(summary.calibration).toBeUndefined();
    expect(summary.metrics['eval/calibration/brier']).toBeUndefined();
  });
});
