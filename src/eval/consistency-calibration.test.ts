// Agreement calibration through summarizeOutcomes (the path every evaluation takes): the majority share is
// the confidence, a sample without an answer counts against it, a unanimous wrong majority is confident
// wrong, and single-sample evaluations report nothing.
import { describe, expect, it } from 'vitest';
import { Rng } from '../core/rng.ts';
import { addition } from '../tasks/addition.ts';
import { summarizeOutcomes } from './aggregate.ts';
import type { ProblemOutcome } from './evaluate.ts';
import { formatEvalTable } from './format-table.ts';

const problem = addition.generate(new Rng(1), 2);
const outcome = (answers: (string | null)[], correctAnswer: string): ProblemOutcome => ({
  problem,
  completions: answers.map((answer) => (answer === null ? '' : `A:${answer}`)),
  answers,
  correct: answers.map((answer) => answer === correctAnswer),
  reasons: answers.map(() => undefined),
  confidences: answers.map(() => null),
});

describe('agreement calibration (eval/consistency/*)', () => {
  it('scores the majority share against the majority being right', () => {
    const summary = summarizeOutcomes([
      outcome(['5', '5', '5', '5'], '5'), // q 1, right
      outcome(['7', '7', '7', '7'], '5'), // q 1, wrong: confident wrong
      outcome(['1', '2', null, '1'], '1'), // q 2/4 (the empty sample counts against), right
      outcome(['3', '3', '3', '4'], '4'), // q 3/4, wrong: confident wrong at the threshold
    ]);
    // Brier: (0 + 1 + 0.25 + 0.5625) / 4; ECE: bin 9 holds q = 1, 1 (accuracy 1/2), bin 7 q = 0.75 (0),
    // bin 5 q = 0.5 (1): (2·0.5 + 0.75 + 0.5) / 4.
    expect(summary.metrics['eval/consistency/brier']).toBeCloseTo(1.8125 / 4, 12);
    expect(summary.metrics['eval/consistency/ece']).toBeCloseTo(2.25 / 4, 12);
    expect(summary.metrics['eval/consistency/confidence']).toBeCloseTo(3.25 / 4, 12);
    expect(summary.metrics['eval/consistency/confident_wrong']).toBe(0.5);
    expect(summary.consistency?.problems).toBe(4);
    expect(formatEvalTable(summary)).toContain(
      'agreement calibration over 4 problems (majority share as confidence): Brier 0.453, ECE 0.563, mean confidence 0.813, confident wrong 0.500',
    );
  });

  it('is absent for one sample per problem', () => {
    const summary = summarizeOutcomes([outcome(['5'], '5'), outcome(['6'], '5')]);
    expect(summary.consistency).toBeUndefined();
    expect(formatEvalTable(summary)).not.toContain('agreement calibration');
    expect(Object.keys(summary.metrics).some((key) => key.startsWith('eval/consistency/'))).toBe(false);
  });
});
