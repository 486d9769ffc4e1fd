// `constraints-judge`: training data for an embedded JUDGE of the `constraints` task (./constraints.ts,
// after IFEval, arXiv 2311.07911): a small model pretrained (SFT) on it grades a candidate answer, and
// since every label is code-checked, its accuracy against the truth is this task's held-out pass@1.
// The format is our construction, not IFEval's (IFEval grades with code only): judge SFT data that
// writes its reasoning per criterion before the verdict, as rubric judges do.
//
// Prompt:   `n=4|has:kiv|not:ral\n>tosu kiv bilu ral\n`   (the constraints prompt, `>`, the candidate, so
//           the reward template `{{prompt}}>{{extracted}}\n` gives exactly this prompt)
// Solution: `n=4:y\nhas:kiv:y\nnot:ral:n\nVerdict: FAIL\nA:FAIL`   (each constraint in prompt order with
//           its truth on the candidate, from checkConstraints, then the verdict and the answer line)
// A candidate that fails the constraints format check (empty, a word outside the vocabulary, not single
// spaces) gets `format:n\nVerdict: FAIL\nA:FAIL`: no constraint lines, as `constraints`' verifier stops at
// the format check. So the verdict is PASS exactly when `constraints.verify(problem, 'A:' + candidate)` is
// correct (constraints-judge.test.ts checks it over thousands of seeds).
// Candidates per problem: 47% a satisfying text (the witness, or half the time a one-edit variant that
// still satisfies), 48% a near miss, 5% garbage (empty, a reversed word outside the vocabulary, a double
// space). A near miss is the witness with one edit (replace, insert, delete, swap, duplicate; half the
// time on or with a word the constraints name), drawn again up to 4 times while it still satisfies, the
// last kept whatever its truth. PASS share (seed 1, 4,000 a level): 54, 50, 49, 48, 47% at d = 1..5.
// Difficulty d (1..5): the number of constraints (the constraints generator at that difficulty).
// Canonical key: the constraints canonical key, `>`, the candidate.
import type { Problem } from '../core/problem.ts';
import type { Rng } from '../core/rng.ts';
import {
  checkConstraints,
  constraints,
  constraintsCanonicalKey,
  constraintsFormatError,
  constraintVocabulary,
  parseConstraintsPrompt,
} from './constraints.ts';
import {
  checkDifficulty,
  extractAnswerLine,
  knob,
  makeProblem,
  sortedAlphabet,
  type Task,
  verifyExactAnswer,
} from './task.ts';

const name = 'constraints-judge';
const difficulty = { min: 1, max: 5, meaning: 'number of constraints' };
/** Shares of the candidate sources; the rest are near misses. */
const garbageShare = 0.05;
const satisfyingShare = 0.47;
/** Tries at a satisfying one-edit variant of the witness before settling on the witness itself. */
const variantTries = 12;
/** Draws of a near miss while the edit still satisfies (nearMiss). */
const missTries = 4;

export type JudgeVerdict = 'PASS' | 'FAIL';

/** How a candidate was made (metadata.source), for judge accuracy per kind of answer. */
export type CandidateSource =
  | 'witness'
  | 'variant'
  | 'replace'
  | 'insert'
  | 'delete'
  | 'swap'
  | 'duplicate'
  | 'empty'
  | 'unknown-word'
  | 'double-space';
type Edit = 'replace' | 'insert' | 'delete' | 'swap' | 'duplicate';
const edits: readonly Edit[] = ['replace', 'insert', 'delete', 'swap', 'duplicate'];

/** The code-checked grading of a candidate against a constraints problem. */
export interface JudgeGrading {
  /** The candidate passes the constraints format check (vocabulary words, single spaces, not empty). */
  wellFormed: boolean;
  /** Each constraint's truth on the candidate, prompt order (checkConstraints). */
  truth: boolean[];
  verdict: JudgeVerdict;
}

/**
 * Grades `candidate` as the constraints verifier sees the completion `A:<candidate>`: well-formed and
 * every constraint true gives PASS.
 */
export function gradeCandidate(problem: Problem, candidate: string): JudgeGrading {
  const completion = `A:${candidate}`;
  const extracted = extractAnswerLine(completion);
  const wellFormed = extracted !== null && constraintsFormatError(extracted) === null;
  const truth = checkConstraints(problem, completion).map((entry) => entry.passed);
  const verdict = wellFormed && truth.every(Boolean) ? 'PASS' : 'FAIL';
  return { wellFormed, truth, verdict };
}

/** The judge's worked solution: a line per constraint (or `format:n`), the verdict, the answer line. */
export function judgeSolution(constraintTexts: readonly string[], grading: JudgeGrading): string {
  const lines = grading.wellFormed
    ? constraintTexts.map((text, i) => `${text}:${grading.truth[i] ? 'y' : 'n'}`)
    : ['format:n'];
  return [...lines, `Verdict: ${grading.verdict}`, `A:${grading.verdict}`].join('\n');
}

/**
 * The judge problem of a constraints problem and a candidate answer text (one line; the reward's
 * `{{extracted}}`); throws a RangeError when `problem` is not a constraints problem or the candidate
 * holds a newline.
 */
export function constraintsJudgeProblem(
  problem: Problem,
  candidate: string,
  source?: CandidateSource,
): Problem {
  const parsed = parseConstraintsPrompt(problem.prompt);
  if (parsed === null || problem.prompt.includes('>'))
    throw new RangeError(`${name}: '${problem.prompt.trim()}' is not a constraints prompt`);
  if (candidate.includes('\n')) throw new RangeError(`${name}: the candidate must be one line`);
  const grading = gradeCandidate(problem, candidate);
  const constraintTexts = problem.prompt.slice(0, -1).split('|');
  return makeProblem({
    task: name,
    difficulty: parsed.length,
    prompt: `${problem.prompt}>${candidate}\n`,
    answer: grading.verdict,
    solution: judgeSolution(constraintTexts, grading),
    params: { ...problem.params },
    metadata: {
      constraintsPrompt: problem.prompt,
      candidate,
      truth: grading.truth,
      verdict: grading.verdict,
      wellFormed: grading.wellFormed,
      ...(source === undefined ? {} : { source }),
    },
  });
}

/** The words the constraints name (has/not/start/end/rep values): edits draw from them half the time. */
function namedWords(problem: Problem): string[] {
  const named = (parseConstraintsPrompt(problem.prompt) ?? []).map((constraint) => constraint.value);
  return named.filter((value): value is string => typeof value === 'string');
}

/** The witness with one edit (never empty: a one-word text is not shortened), at most one word longer. */
function edit(rng: Rng, words: readonly string[], kind: Edit, named: readonly string[]): string[] {
  const pool = named.length > 0 && rng.next() < 0.5 ? named : constraintVocabulary;
  const result = [...words];
  // Half the time the edit lands on a word the constraints name (when the text holds one).
  const namedAt = words.flatMap((word, i) => (named.includes(word) ? [i] : []));
  const at = namedAt.length > 0 && rng.next() < 0.5 ? rng.pick(namedAt) : rng.int(0, words.length - 1);
  if (kind === 'insert') result.splice(rng.int(0, words.length), 0, rng.pick(pool));
  else if (kind === 'duplicate') result.splice(at, 0, words[at]);
  else if (kind === 'delete' && words.length > 1) result.splice(at, 1);
  else if (kind === 'swap' && words.length > 1) {
    const other = (at + rng.int(1, words.length - 1)) % words.length;
    [result[at], result[other]] = [result[other], result[at]];
  } else {
    const choices = pool.filter((word) => word !== words[at]);
    result[at] = rng.pick(choices.length > 0 ? choices : constraintVocabulary.filter((w) => w !== words[at]));
  }
  return result;
}

/** A text that fails the format check: empty, a word reversed out of the vocabulary, or a double space. */
function garbage(rng: Rng, witness: readonly string[]): { text: string; source: CandidateSource } {
  const source = rng.pick<CandidateSource>(['empty', 'unknown-word', 'double-space']);
  if (source === 'empty') return { text: '', source };
  const at = rng.int(0, witness.length - 1);
  const words = [...witness];
  // No vocabulary word reversed is a vocabulary word (constraints-judge.test.ts checks it).
  if (source === 'unknown-word') words[at] = [...words[at]].reverse().join('');
  else words[Math.min(at, witness.length - 2)] += ' ';
  return { text: words.join(' '), source };
}

/** A satisfying candidate: the witness, or half the time a one-edit variant that still satisfies. */
function satisfying(
  rng: Rng,
  problem: Problem,
  witness: readonly string[],
): { text: string; source: CandidateSource } {
  if (rng.next() < 0.5) {
    const named = namedWords(problem);
    for (let attempt = 0; attempt < variantTries; attempt++) {
      const text = edit(rng, witness, rng.pick(edits), named).join(' ');
      if (text !== problem.answer && gradeCandidate(problem, text).verdict === 'PASS')
        return { text, source: 'variant' };
    }
  }
  return { text: problem.answer, source: 'witness' };
}

/**
 * A one-edit variant of the witness, drawn again (up to `missTries` times) while it still satisfies, the
 * last kept whatever its truth: a single random edit keeps a one-constraint problem satisfied 2/3 of the
 * time, which would tilt the labels towards PASS.
 */
function nearMiss(rng: Rng, problem: Problem, witness: readonly string[]): { text: string; source: Edit } {
  const named = namedWords(problem);
  let kind = rng.pick(edits);
  let text = edit(rng, witness, kind, named).join(' ');
  for (let attempt = 1; attempt < missTries && gradeCandidate(problem, text).verdict === 'PASS'; attempt++) {
    kind = rng.pick(edits);
    text = edit(rng, witness, kind, named).join(' ');
  }
  return { text, source: kind };
}

/** A judge problem for a constraints problem: a satisfying text, a near miss or garbage. */
function judgeFor(rng: Rng, problem: Problem): Problem {
  const witness = problem.answer.split(' ');
  const roll = rng.next();
  if (roll < garbageShare) {
    const { text, source } = garbage(rng, witness);
    return constraintsJudgeProblem(problem, text, source);
  }
  if (roll < garbageShare + satisfyingShare) {
    const { text, source } = satisfying(rng, problem, witness);
    return constraintsJudgeProblem(problem, text, source);
  }
  const { text, source } = nearMiss(rng, problem, witness);
  return constraintsJudgeProblem(problem, text, source);
}

/** Splits a judge prompt into the constraints prompt and the candidate; null when it is not one. */
export function parseJudgePrompt(prompt: string): { constraintsPrompt: string; candidate: string } | null {
  const at = prompt.indexOf('>');
  if (at < 0 || !prompt.endsWith('\n')) return null;
  return { constraintsPrompt: prompt.slice(0, at), candidate: prompt.slice(at + 1, -1) };
}

export const constraintsJudge: Task = {
  labelAnswers: true,
  name,
  description:
    'Judge a candidate answer of the constraints task: check each constraint (y/n), then the verdict PASS or FAIL.',
  difficulty,
  alphabet: sortedAlphabet(constraints.alphabet, '>', 'format:yn', 'Verdict: PASS FAIL'),
  parameters: constraints.parameters,
  generate(rng, level) {
    checkDifficulty(name, difficulty, level);
    return judgeFor(rng, constraints.generate(rng, level));
  },
  generateFromParams(rng, params) {
    const level = knob(params.constraints, difficulty.min, difficulty.max, difficulty.min);
    return judgeFor(rng, constraints.generateFromParams!(rng, { ...params, constraints: level }));
  },
  // Constraint texts sum to ≤ 9d+2 (`start:` + 5 letters = 11 once, then ≤ 9: has/not/end/rep + 5).
  // Prompt ≤ (9d+2) + (d−1) `|` + `\n` + `>` + candidate ≤ 41 (a 6-word witness of 5-letter words plus
  // one inserted word: 7 × 5 + 6 spaces) + `\n` = 10d+45. Solution ≤ (9d+2) + 3d (`:y\n` per line)
  // + `Verdict: PASS\n` (14) + `A:PASS` (6) = 12d+22 (`format:n\n` is 9 ≤ 14). Plus BOS, EOS: 22d+69,
  // 179 at d = 5, under a 192-token context; attainable (constraints-judge.test.ts builds it).
  maxSequenceTokens: (level) => 22 * level + 69,
  verify: verifyExactAnswer,
  extractAnswer: extractAnswerLine,
  canonicalKey: constraintsJudgeCanonicalKey,
};

/** The constraints canonical key, `>`, the candidate: a reordering of the constraints is the same problem. */
export function constraintsJudgeCanonicalKey(problem: Problem): string {
  const parts = parseJudgePrompt(problem.prompt);
  if (parts === null) return `${name}:${problem.prompt}`;
  return `${constraintsCanonicalKey({ ...problem, prompt: parts.constraintsPrompt })}>${parts.candidate}`;
}
