// Agreement calibration of held-out samples: with n ≥ 2 samples of a problem, the model's confidence in its
// majority answer is the share of the n samples that give it (self-consistency as confidence: Wang et al.
// 2022, arXiv 2203.11171; the quantity RLSC ¶63 and TTRL reward, and whose overconfidence — a confident
// wrong majority — is the failure they warn about). Per problem: q = votes of the majority class / n (a
// sample without an answer counts against it), c = the majority answer is correct (maj@n); reported as the
// Brier score and ECE (calibration.ts, 10 bins) over problems, the mean confidence, and the share of
// problems whose majority is wrong although at least 3/4 of the samples agree (confident wrong).
// Logged for every evaluation with n ≥ 2 as eval/consistency/{brier,ece,confidence,confident_wrong}.
import { majorityVote } from '../rewards/answer-vote.ts';
import { type CalibrationPair, calibrationSummary } from './calibration.ts';
import type { ProblemOutcome } from './evaluate.ts';

export interface ConsistencyCalibration {
  problems: number;
  brier: number;
  ece: number;
  /** Mean majority share. */
  confidence: number;
  /** Share of problems with a wrong majority held by ≥ 3/4 of the samples. */
  confidentWrong: number;
}

/** The confident-wrong threshold on the majority share. */
export const confidentShare = 0.75;

/** Agreement calibration over problems with at least 2 samples; undefined when there are none. */
export function consistencyCalibration(
  outcomes: readonly ProblemOutcome[],
): ConsistencyCalibration | undefined {
  const pairs: CalibrationPair[] = [];
  let confidentWrong = 0;
  for (const outcome of outcomes) {
    const n = outcome.answers.length;
    if (n < 2) continue;
    const vote = majorityVote(outcome.answers);
    const confidence = vote.votes / n;
    const correct = vote.index >= 0 && outcome.correct[vote.index];
    if (!correct && confidence >= confidentShare) confidentWrong += 1;
    pairs.push({ confidence, correct });
  }
  if (pairs.length === 0) return undefined;
  const summary = calibrationSummary(pairs);
  return {
    problems: pairs.length,
    brier: summary.brier,
    ece: summary.ece,
    confidence: summary.meanConfidence,
    confidentWrong: confidentWrong / pairs.length,
  };
}
