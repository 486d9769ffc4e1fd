// Refusal metrics of an evaluation whose problems include unanswerable ones (tasks/unanswerable-countdown.ts,
// digest ¶25 "The Hallucination Tax of Reinforcement Finetuning"): how often the model refuses where it
// should (eval/refusal/unanswerable_rate), refuses where it should not (eval/refusal/false_rate), and how
// accurate it is on the answerable problems (eval/refusal/answerable_accuracy), over all samples.
// Empty when no problem is unanswerable, so ordinary evaluations log nothing new.
import { isRefusal, isUnanswerable } from '../tasks/unanswerable-countdown.ts';
import type { ProblemOutcome } from './evaluate.ts';

export function refusalMetrics(outcomes: readonly ProblemOutcome[]): Record<string, number> {
  if (!outcomes.some((outcome) => isUnanswerable(outcome.problem))) return {};
  const rate = (values: boolean[]) => (values.length > 0 ? values.filter(Boolean).length / values.length : 0);
  const unanswerable = outcomes.filter((outcome) => isUnanswerable(outcome.problem));
  const answerable = outcomes.filter((outcome) => !isUnanswerable(outcome.problem));
  const metrics: Record<string, number> = {
    'eval/refusal/unanswerable_rate': rate(
      unanswerable.flatMap((outcome) => outcome.completions.map(isRefusal)),
    ),
  };
  if (answerable.length > 0) {
    metrics['eval/refusal/false_rate'] = rate(
      answerable.flatMap((outcome) => outcome.completions.map(isRefusal)),
    );
    metrics['eval/refusal/answerable_accuracy'] = rate(answerable.flatMap((outcome) => outcome.correct));
  }
  return metrics;
}
