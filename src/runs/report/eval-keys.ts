// Parses the flat evaluation metric names of src/eval/aggregate.ts: eval/pass@<k>/<task>/<difficulty>,
// eval/maj@<k>/<task>/<difficulty>, and the overall eval/pass@<k> (no task, no difficulty).

export interface EvalKey {
  metric: 'pass' | 'maj';
  k: number;
  /** Absent for the overall rate. */
  task?: string;
  difficulty?: string;
}

// The difficulty is the last segment; a task name may itself contain '/'.
const EVAL_KEY = /^eval\/(pass|maj)@(\d+)(?:\/(.+)\/([^/]+))?$/;

export function parseEvalKey(key: string): EvalKey | null {
  const match = EVAL_KEY.exec(key);
  if (!match) return null;
  const parsed: EvalKey = { metric: match[1] as 'pass' | 'maj', k: Number(match[2]) };
  if (match[3] !== undefined) {
    parsed.task = match[3];
    parsed.difficulty = match[4];
  }
  return parsed;
}

/** Difficulties in numeric order when both are numbers, else alphabetical. */
export function compareDifficulty(a: string, b: string): number {
  const difference = Number(a) - Number(b);
  return Number.isNaN(difference) ? a.localeCompare(b) : difference;
}
