// What Tango's verifier reads and writes, as pure functions. The verifier is generative and process-level:
// after the problem, the completion and a suffix it writes one verdict letter per step of the completion
// (a step is a non-empty line; `Y` the step is right, `N` it is wrong, by default: the letters are options),
// e.g. `YYN`. Its outcome judgement
// is "every step right". The generator's process reward is the share of steps judged right; the verifier's
// own reward is outcome-level — 1 when its outcome judgement matches the run's outcome reward (the task
// verifier's correctness), else 0; a malformed reply earns a small format credit — so it learns process
// judgements with no process labels, as in the paper. Deviations: verdict letters instead of the paper's written step
// critiques (a small character model can learn to write letters by RL; it cannot learn prose), and the
// process reward enters the generator's reward as one scalar instead of step-level advantages.

/** A completion's steps: its non-empty lines. */
export function stepsOf(completion: string): string[] {
  return completion.split('\n').filter((line) => line.trim() !== '');
}

export interface Verdict {
  /** Per step, true when judged right; null when the reply is malformed. */
  steps: boolean[] | null;
}

/** The verdict letters: `right` for a step judged right, `wrong` for one judged wrong. */
export interface Letters {
  right: string;
  wrong: string;
}

export const DEFAULT_LETTERS: Letters = { right: 'Y', wrong: 'N' };

/** The verifier's reply read for `steps` steps: its first `steps` non-space characters, each a verdict letter. */
export function readVerdict(reply: string, steps: number, letters: Letters = DEFAULT_LETTERS): Verdict {
  const read = [...reply.replace(/\s+/g, '')].slice(0, steps);
  if (steps === 0 || read.length < steps || read.some((c) => c !== letters.right && c !== letters.wrong)) {
    return { steps: null };
  }
  return { steps: read.map((c) => c === letters.right) };
}

/** The generator's process reward from one verdict: the share of steps judged right (0 when malformed). */
export function processScore(verdict: Verdict): number {
  if (!verdict.steps) return 0;
  return verdict.steps.filter(Boolean).length / verdict.steps.length;
}

/**
 * The verifier's reward: 1 when its outcome judgement (all steps right) equals the outcome, else 0; a
 * malformed reply earns `formatCredit` × the share of its first `steps` characters that are Y or N (a
 * format reward, ours: it gives a verifier that cannot write verdicts yet a gradient towards the format).
 */
export function verifierReward(
  reply: string,
  verdict: Verdict,
  outcomeCorrect: boolean,
  steps: number,
  formatCredit: number,
  letters: Letters = DEFAULT_LETTERS,
): number {
  if (!verdict.steps) {
    const read = [...reply.replace(/\s+/g, '')].slice(0, steps);
    const valid = read.filter((c) => c === letters.right || c === letters.wrong).length;
    return steps > 0 ? (formatCredit * valid) / steps : 0;
  }
  return verdict.steps.every(Boolean) === outcomeCorrect ? 1 : 0;
}
