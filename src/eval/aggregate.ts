// Aggregates graded samples into the evaluation summary: per task and difficulty, unbiased pass@k
// (Chen et al. 2021) for every power-of-two k ≤ n and maj@k over the first k samples; plus an overall
// row, and the flat metric names logged during training (eval/pass@k/<task>/<difficulty>).
import { type CalibrationPair, calibrationSummary } from './calibration.ts';
import { type ConsistencyCalibration, consistencyCalibration } from './consistency-calibration.ts';
import type { ProblemOutcome } from './evaluate.ts';
import { majorityAtKCurve } from './majority.ts';
import { passAtKFromCorrect, powersOfTwoUpTo } from './pass-at-k.ts';
import { refusalMetrics } from './refusal.ts';
import { type ToolUse, toolUse, toolUseMetrics } from './tool-use.ts';

export interface EvalGroup {
  task: string;
  difficulty: number;
  problems: number;
  /** k → mean unbiased pass@k over the group's problems. */
  passAt: Record<number, number>;
  /** k → mean maj@k. */
  majAt: Record<number, number>;
  /** When the samples were episodes of an environment: how its tools were used (tool-use.ts). */
  tools?: ToolUse;
  /** Calibration of the group's stated confidences (as EvalSummary.calibration); absent when none states one. */
  calibration?: EvalCalibration;
}

/** Calibration over the completions that state a confidence (a `<confidence>` tag or a final `C:` line). */
export interface EvalCalibration {
  stated: number;
  completions: number;
  brier: number;
  ece: number;
  /** AUROC of the confidence for correctness; NaN when every stating completion is right (or wrong). */
  auroc: number;
  /** Mean stated confidence and accuracy over the completions that state one. */
  meanConfidence: number;
  accuracy: number;
}

/** A held-out evaluation: pass@1, pass@k and maj@k overall and per task and difficulty, and the same as metrics. */
export interface EvalSummary {
  /** Samples per problem (n). */
  samples: number;
  groups: EvalGroup[];
  overall: {
    problems: number;
    passAt1: number;
    passAt: Record<number, number>;
    majAt: Record<number, number>;
    tools?: ToolUse;
  };
  /** Flat metrics: eval/pass@k/<task>/<difficulty>, eval/maj@k/…, eval/pass@k (overall). */
  metrics: Record<string, number>;
  /**
   * Brier score, expected calibration error (10 equal-width bins) and AUROC over the completions that state
   * a confidence (RLCR's <confidence> tag or a final `C:` line); absent when none does.
   */
  calibration?: EvalCalibration;
  /** Agreement calibration (consistency-calibration.ts): the majority share as confidence; n ≥ 2 only. */
  consistency?: ConsistencyCalibration;
}

export function summarizeOutcomes(outcomes: readonly ProblemOutcome[]): EvalSummary {
  const samples = outcomes.length > 0 ? Math.min(...outcomes.map((outcome) => outcome.correct.length)) : 0;
  const ks = powersOfTwoUpTo(samples);
  const byGroup = new Map<string, ProblemOutcome[]>();
  for (const outcome of outcomes) {
    const key = `${outcome.problem.task}\u0000${outcome.problem.difficulty}`;
    if (!byGroup.has(key)) byGroup.set(key, []);
    byGroup.get(key)!.push(outcome);
  }
  const scoreOf = (members: readonly ProblemOutcome[]) => {
    const passAt: Record<number, number> = {};
    const majAt: Record<number, number> = {};
    for (const k of ks) {
      passAt[k] = mean(members.map((outcome) => passAtKFromCorrect(outcome.correct, k)));
    }
    const majCurves = members.map((outcome) =>
      majorityAtKCurve(outcome.answers.slice(0, samples), outcome.correct.slice(0, samples)),
    );
    for (const k of ks) majAt[k] = mean(majCurves.map((curve) => curve[k]));
    const tools = toolUse(members);
    return { passAt, majAt, ...(tools ? { tools } : {}) };
  };
  const withCalibration = (members: readonly ProblemOutcome[]) => {
    const calibration = calibrationOf(members);
    return calibration ? { calibration } : {};
  };
  const metrics: Record<string, number> = {};
  const groups: EvalGroup[] = [...byGroup.values()]
    .map((members) => ({
      task: members[0].problem.task,
      difficulty: members[0].problem.difficulty,
      problems: members.length,
      ...scoreOf(members),
      ...withCalibration(members),
    }))
    .sort(
      (a, b) => a.task.localeCompare(b.task) || difficultyOrder(a.difficulty) - difficultyOrder(b.difficulty),
    );
  for (const group of groups) {
    for (const k of ks) {
      metrics[`eval/pass@${k}/${group.task}/${group.difficulty}`] = group.passAt[k];
      if (k > 1) metrics[`eval/maj@${k}/${group.task}/${group.difficulty}`] = group.majAt[k];
    }
    if (group.tools)
      Object.assign(metrics, toolUseMetrics(group.tools, `/${group.task}/${group.difficulty}`));
  }
  const overall = scoreOf(outcomes);
  for (const k of ks) metrics[`eval/pass@${k}`] = overall.passAt[k];
  if (overall.tools) Object.assign(metrics, toolUseMetrics(overall.tools, ''));
  // Only with unanswerable problems in the set: refusal and false-refusal rates (refusal.ts).
  Object.assign(metrics, refusalMetrics(outcomes));
  const calibration = calibrationOf(outcomes);
  if (calibration) {
    metrics['eval/calibration/brier'] = calibration.brier;
    metrics['eval/calibration/ece'] = calibration.ece;
    metrics['eval/calibration/stated'] = calibration.stated / calibration.completions;
    metrics['eval/calibration/confidence'] = calibration.meanConfidence;
    metrics['eval/calibration/accuracy'] = calibration.accuracy;
    if (Number.isFinite(calibration.auroc)) metrics['eval/calibration/auroc'] = calibration.auroc;
  }
  const consistency = consistencyCalibration(outcomes);
  if (consistency) {
    metrics['eval/consistency/brier'] = consistency.brier;
    metrics['eval/consistency/ece'] = consistency.ece;
    metrics['eval/consistency/confidence'] = consistency.confidence;
    metrics['eval/consistency/confident_wrong'] = consistency.confidentWrong;
  }
  return {
    samples,
    groups,
    overall: { problems: outcomes.length, passAt1: overall.passAt[1] ?? 0, ...overall },
    metrics,
    ...(calibration ? { calibration } : {}),
    ...(consistency ? { consistency } : {}),
  };
}

function calibrationOf(outcomes: readonly ProblemOutcome[]): EvalCalibration | undefined {
  const pairs: CalibrationPair[] = [];
  let completions = 0;
  for (const outcome of outcomes) {
    outcome.confidences.forEach((confidence, index) => {
      completions++;
      if (confidence !== null) pairs.push({ confidence, correct: outcome.correct[index] });
    });
  }
  if (pairs.length === 0) return undefined;
  const summary = calibrationSummary(pairs);
  return {
    stated: pairs.length,
    completions,
    brier: summary.brier,
    ece: summary.ece,
    auroc: summary.auroc,
    meanConfidence: summary.meanConfidence,
    accuracy: summary.accuracy,
  };
}

function mean(values: readonly number[]): number {
  return values.length > 0 ? values.reduce((sum, value) => sum + value, 0) / values.length : 0;
}

/** Problems of a problem set may have no difficulty: their group sorts after the task's levels. */
function difficultyOrder(difficulty: number | undefined): number {
  return difficulty ?? Number.MAX_SAFE_INTEGER;
}
