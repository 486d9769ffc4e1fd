// A task whose worked solutions end with a stated confidence line, `C:<q>`, after the answer line: the
// cold-start format for calibration rewards (issue 28 claim vi; the `calibration` reward's `answer-line`
// format, src/rewards/calibration.ts). RLCR ("Beyond Binary Rewards", Damani et al., arXiv 2507.16806)
// has an LLM write `<answer>…</answer><analysis>…</analysis><confidence>q</confidence>`; those ~60 characters
// of tags do not fit the embedded model's 128-token context next to an 8-digit column trace, so the
// embedded format is the compact line form.
//
// Solution: `<the task's solution, ending with A:…>\nC:0.3`
//
// The confidence in a worked solution carries no information: q is one of 0.0, 0.1, …, 1.0, drawn uniformly
// from a hash of the prompt, independent of the problem's difficulty (every worked solution is correct
// anyway). A cold start trained on these traces states a confidence in the right place and the right
// syntax, with a distribution that says nothing about its own correctness: the format without calibration,
// which is what an RL calibration reward then has to teach. Grading, answers, difficulty, the canonical
// key and the held-out side are the wrapped task's (the held-out hash is taken under this task's name).
import { createHash } from 'node:crypto';
import type { Problem } from '../core/problem.ts';
import { alignedAddition } from './aligned-addition.ts';
import { problemId, sortedAlphabet, type Task } from './task.ts';

/** The line a stated confidence is written on: `C:` and a decimal in [0, 1]. */
export const confidencePrefix = 'C:';
/** `\nC:` and three characters (`0.3`): the tokens a confidence line adds to a solution. */
const lineTokens = 1 + confidencePrefix.length + 3;

/** The uninformative confidence of a worked solution: one of 0.0 … 1.0, uniform over a hash of the prompt. */
export function uninformedConfidence(prompt: string): string {
  const word = createHash('sha256').update(`confidence\0${prompt}`).digest().readUInt16BE(0);
  return ((word % 11) / 10).toFixed(1);
}

/** `base` with every worked solution followed by an uninformative confidence line, under the name `name`. */
export function withStatedConfidence(base: Task, name: string): Task {
  const wrap = (problem: Problem): Problem => ({
    ...problem,
    id: problemId(name, problem.difficulty, problem.prompt),
    task: name,
    category: name,
    solution: `${problem.solution}\n${confidencePrefix}${uninformedConfidence(problem.prompt)}`,
  });
  const task: Task = {
    ...base,
    name,
    description: `${base.name} with an uninformative stated confidence line (C:q) after the answer: cold starts for calibration rewards.`,
    alphabet: sortedAlphabet(base.alphabet, 'C:.0123456789'),
    generate: (rng, difficulty) => wrap(base.generate(rng, difficulty)),
  };
  if (base.maxSequenceTokens) {
    const tokens = base.maxSequenceTokens;
    task.maxSequenceTokens = (level) => tokens(level) + lineTokens;
  }
  if (base.generateFromParams) {
    const fromParams = base.generateFromParams;
    task.generateFromParams = (rng, params) => wrap(fromParams(rng, params));
  }
  if (base.parseProblem) {
    const parse = base.parseProblem;
    task.parseProblem = (text) => {
      const parsed = parse(text);
      return parsed.ok ? { ok: true, problem: wrap(parsed.problem) } : parsed;
    };
  }
  return task;
}

const name = 'aligned-addition-confidence';

export const alignedAdditionConfidence: Task = withStatedConfidence(alignedAddition, name);
