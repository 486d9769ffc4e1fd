// The retry prompt of reflect-then-retry (guidance 'retry', retry.ts): the original problem, one failed
// attempt and the grader's feedback, run through the leakage guard so the gold answer never reaches it.
//
// Feedback. Our verifiers' reasons say what failed without the answer (src/tasks/task.ts:
// "answer '123' is wrong", "no answer line (A:...) found"; countdown: "expression equals 27, not the
// target"). A bare "wrong" says little, so the grader's feedback is the reason plus a diagnosis computed
// from the gold answer without stating it (`diagnose`): for a numeric answer the first wrong digit counted
// from the right (addition: the column where the attempt went wrong) or the number of digits; for other
// answers the first wrong character from the left or the length. The diagnosis says where, never what.
// Both parts, and the shown attempt, pass through leakage.ts (cut before the answer's first occurrence).
import type { Problem } from '../core/problem.ts';
import type { RewardResult } from '../core/reward.ts';
import { extractAnswerLine } from '../tasks/task.ts';
import { guardAgainstAnswer, leakContext } from './leakage.ts';

/** Where an extracted answer first departs from the gold one, without the gold's digits or characters. */
export function diagnose(gold: string, extracted: string | null): string {
  if (extracted === null) return 'no answer line';
  const answer = gold.trim();
  const given = extracted.trim();
  if (/^[-+]?\d+$/.test(answer) && /^[-+]?\d+$/.test(given)) {
    const a = answer.replace(/^[-+]/, '');
    const b = given.replace(/^[-+]/, '');
    if (a.length !== b.length) return `${a.length} digits, not ${b.length}`;
    for (let k = 1; k <= a.length; k++) {
      if (a[a.length - k] !== b[b.length - k]) return `wrong digit ${k} from right`;
    }
    return 'wrong sign';
  }
  if (answer.length !== given.length) return `${answer.length} chars, not ${given.length}`;
  const position = [...answer].findIndex((character, index) => character !== given[index]);
  return position < 0 ? 'wrong' : `wrong char ${position + 1}`;
}

export type FeedbackPart = 'reason' | 'diagnosis' | 'both';

export interface RetryPromptParts {
  problem: Problem;
  /** The prompt the retry answers (the original, bare prompt). */
  prompt: string;
  /** The failed completion as shown (already cut to the part to show). */
  attempt: string;
  result: RewardResult;
  feedback: FeedbackPart;
  /** With {prompt}, {attempt} and {feedback}. */
  template: string;
}

export interface RetryPrompt {
  text: string;
  /** The guard cut the shown attempt or the feedback (counted as guidance/leak_cut). */
  violated: boolean;
  /** What the guard cut left empty (counted as guidance/leak_dropped). */
  dropped: boolean;
}

/** The feedback text: the grader's reason and/or the diagnosis, before the guard. */
export function feedbackText(
  problem: Problem,
  attempt: string,
  result: RewardResult,
  part: FeedbackPart,
): string {
  const reason = result.reason ?? 'wrong';
  if (part === 'reason') return reason;
  const diagnosis = diagnose(problem.answer, extractAnswerLine(attempt));
  return part === 'diagnosis' ? diagnosis : `${reason}; ${diagnosis}`;
}

export function retryPrompt(parts: RetryPromptParts): RetryPrompt {
  const { problem } = parts;
  const context = leakContext(problem);
  const attempt = guardAgainstAnswer(parts.attempt, problem.answer, context);
  const feedback = guardAgainstAnswer(
    feedbackText(problem, parts.attempt, parts.result, parts.feedback),
    problem.answer,
    context,
  );
  const values: Record<string, string> = {
    prompt: parts.prompt,
    attempt: attempt.text,
    feedback: feedback.text,
  };
  return {
    text: parts.template.replace(/\{(prompt|attempt|feedback)\}/g, (_, key: string) => values[key]),
    violated: attempt.violated || feedback.violated,
    dropped: (attempt.violated && attempt.text === '') || (feedback.violated && feedback.text === ''),
  };
}
