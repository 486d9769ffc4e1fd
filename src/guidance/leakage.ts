// Leakage guard shared by every scaffold that shows the policy part of a worked solution (hints in the
// prompt, forced oracle prefixes, retry feedback, privileged hints): the shown text may never contain the
// problem's final answer, in any form, or the scaffold would train "copy the answer" instead of "solve".
// No framework ships one (issue 13). The matcher is leakage/leak-forms.ts: the text is normalised first
// (case, Unicode and worded operators, number words: leakage/normalise.ts), then searched for the answer
// as digits (separators allowed), as scattered digits, as an equal value (exact arithmetic) or as text
// (separators and case allowed). Measured on hand-written leaks and clean hints of every built-in task
// (leakage/cases.ts; leakage.test.ts asserts ≥ 95% caught and no clean hint flagged).
// A violating text is cut back to just before the first occurrence; the caller drops what remains if it
// is too short to help (hints: QuestA's 10-character rule). Worked-solution prefixes are also cut before
// their answer line (worked-solution.ts), so no fraction ends inside "A:…".
import type { Problem } from '../core/problem.ts';
import { tasks } from '../tasks/index.ts';
import { findLeak, type LeakContext, type LeakRule } from './leakage/leak-forms.ts';

export type { LeakContext, LeakRule } from './leakage/leak-forms.ts';

export interface LeakCheck {
  /** The text cut back before the first occurrence of the answer (unchanged when there is none). */
  text: string;
  /** True when the answer occurred and the text was cut. */
  violated: boolean;
  /** The rule that found it (when violated). */
  rule?: LeakRule;
}

/** Where the answer first occurs in `text` (-1 = nowhere); `context.prompt` exempts its restated numbers. */
export function answerPosition(text: string, answer: string, context: LeakContext = {}): number {
  return findLeak(text, answer, context)?.position ?? -1;
}

/** `text` with everything from the answer's first occurrence on removed. */
export function guardAgainstAnswer(text: string, answer: string, context: LeakContext = {}): LeakCheck {
  const leak = findLeak(text, answer, context);
  if (!leak) return { text, violated: false };
  return { text: text.slice(0, leak.position), violated: true, rule: leak.rule };
}

/** What the guard knows of a problem: its prompt, and whether its task's answers are labels. */
export function leakContext(problem: Pick<Problem, 'task' | 'prompt'>): LeakContext {
  const label = tasks.has(problem.task) && tasks.get(problem.task).labelAnswers === true;
  return { prompt: problem.prompt, ...(label && { label }) };
}
