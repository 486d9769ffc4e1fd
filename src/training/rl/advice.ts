// Advice printed when an RL run starts: settings that are valid but will likely not do what the user
// wants. They are warnings, not errors: the run goes ahead, and each one is recorded as a run event.
import type { TaskSelector } from '../../core/selector.ts';

export interface AdviceInput {
  selector: Pick<TaskSelector, 'name' | 'perProblemEvidence'>;
  /** Problems in the selector's pool (after de-duplication). */
  poolSize: number;
  steps: number;
  batchSize: number;
}

/** Below this many expected draws per pool problem, per-problem evidence rarely comes back. */
export const MIN_VISITS_PER_PROBLEM = 2;

export function runAdvice({ selector, poolSize, steps, batchSize }: AdviceInput): string[] {
  const advice: string[] = [];
  const visits = (steps * batchSize) / Math.max(1, poolSize);
  if (selector.perProblemEvidence && visits < MIN_VISITS_PER_PROBLEM) {
    const suggestion = Math.floor((steps * batchSize) / MIN_VISITS_PER_PROBLEM);
    advice.push(
      `selector '${selector.name}' acts on each problem's own outcomes, but ${steps} steps × ${batchSize} problems ` +
        `draw each of the ${poolSize} pool problems ${visits.toFixed(1)} times on average, so most are never seen ` +
        `again and it will behave much like uniform; use poolSize ≤ ${suggestion} or more steps`,
    );
  }
  return advice;
}
