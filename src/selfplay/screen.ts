// Screening of one generated problem statement, before the student ever sees it (issue 16 item 4):
// parse it with the task's own grammar (the task's solver writes the answer and worked solution, so an
// admitted problem is verifiable by construction), then reject what is too long for the context, a
// duplicate of the pool, or held-out contamination. The contamination guard compares canonical keys
// (Task.canonicalKey: operands swapped or zero-padded, numbers permuted all give the held-out key) and
// also rejects any problem that falls in the held-out hash partition (generate-set.ts), so a generated
// problem can never be one the held-out evaluation could draw. Garbage never throws out of here: a
// generator that writes nonsense only loses those proposals (counted by reason).
import type { Problem } from '../core/problem.ts';
import { isHeldOut } from '../tasks/generate-set.ts';
import type { Task } from '../tasks/task.ts';
import type { RejectReason } from './admission.ts';

/** A task's canonical key for a problem (its prompt when the task defines none). */
export function canonicalKeyOf(task: Task, problem: Problem): string {
  return task.canonicalKey !== undefined ? task.canonicalKey(problem) : `${problem.task}:${problem.prompt}`;
}

/** The canonical keys of held-out problems, for the contamination guard. */
export function heldOutKeys(task: Task, heldOut: Iterable<Problem>): Set<string> {
  const keys = new Set<string>();
  for (const problem of heldOut) if (problem.task === task.name) keys.add(canonicalKeyOf(task, problem));
  return keys;
}

export interface ScreenContext {
  task: Task;
  /** Canonical keys of the held-out problems (heldOutKeys). */
  heldOut: ReadonlySet<string>;
  /** Canonical keys already in the pool (or proposed earlier in this round). */
  seen: ReadonlySet<string>;
  /** The run's held-out hash partition share (0 = none). */
  heldOutFraction: number;
  /** Most tokens of [BOS] + prompt + solution + [EOS] (one per character) the context allows. */
  maxTokens: number;
}

export type Screened =
  | { ok: true; problem: Problem; key: string }
  | { ok: false; reason: RejectReason; detail: string };

/** Parses and screens one generated statement; never throws. */
export function screenProposal(text: string, context: ScreenContext): Screened {
  const { task } = context;
  if (task.parseProblem === undefined) {
    return { ok: false, reason: 'unparsable', detail: `${task.name} takes no generated problems` };
  }
  let problem: Problem;
  let key: string;
  try {
    const parsed = task.parseProblem(text);
    if (!parsed.ok) return parsed;
    problem = parsed.problem;
    key = canonicalKeyOf(task, problem);
  } catch (error) {
    return { ok: false, reason: 'unparsable', detail: `parser failed: ${String(error).slice(0, 200)}` };
  }
  const tokens = problem.prompt.length + problem.solution.length + 2;
  if (tokens > context.maxTokens) {
    return { ok: false, reason: 'too-long', detail: `${tokens} tokens > ${context.maxTokens}` };
  }
  if (context.heldOut.has(key)) {
    return { ok: false, reason: 'held-out', detail: `a variant of held-out problem ${key}` };
  }
  if (context.heldOutFraction > 0 && isHeldOut(problem, context.heldOutFraction)) {
    return { ok: false, reason: 'held-out', detail: 'in the held-out partition' };
  }
  if (context.seen.has(key)) return { ok: false, reason: 'duplicate', detail: `already proposed: ${key}` };
  return { ok: true, problem, key };
}
