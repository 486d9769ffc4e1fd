// Instruction following with verifiable constraints (IFEval, arXiv 2311.07911), shrunk for a char-level
// model: the prompt lists constraints on a short text, and the completion writes words of a fixed
// vocabulary of invented 3–5-letter words that satisfy every one of them.
//
// Prompt:   `n=4|has:kiv|not:ral|end:mub\n`            (the constraints, `|`-separated)
// Solution: `tosu\nkiv\nbilu\nmub\nA:tosu kiv bilu mub`   (the chosen words, one a line, then the text)
// Kinds: `n=K` exactly K words (2..6), `has:W`, `not:W`, `start:W` (first word), `end:W` (last word),
// `len<=L` every word has at most L letters (3 or 4), `sorted` alphabetical order (equal words may stand
// together), `rep:W` W exactly twice. n, start, end, len, sorted and rep occur at most once; has and not
// may repeat, never with the same word.
// Difficulty d (1..5): the number of constraints. Satisfiable by construction: the generator draws the
// kinds, builds a witness text that obeys the structural ones (length bound, order, one doubled word),
// reads every value off the witness (`not:` words are vocabulary words it lacks), and re-checks the
// witness with the verifier's own code before returning the problem. So no set is contradictory.
// Deviations from IFEval: any text that meets every constraint is correct, not only the witness; and an
// answer must first be vocabulary words separated by single spaces (a format check, so words outside the
// vocabulary cannot game `not:` or `len<=`). IFEval's instructions are natural-language; here they are a
// fixed compact grammar so a 128-token context holds them.
// Judges: metadata.constraints ({kind, value}), metadata.checklist (a yes/no question per constraint) and
// checkConstraints (each constraint's code-checked truth on the extracted answer), all in prompt order.
// Canonical key: the sorted constraint set, so a reordering of the same constraints is the same problem.
import type { Problem, Verdict } from '../core/problem.ts';
import type { Rng } from '../core/rng.ts';
import { checkDifficulty, extractAnswerLine, knob, makeProblem, sortedAlphabet, type Task } from './task.ts';

const name = 'constraints';
const difficulty = { min: 1, max: 5, meaning: 'number of constraints' };
const minWords = 2;
const maxWords = 6;

/** The words an answer may use: six each of 3, 4 and 5 letters, invented so none carries a meaning. */
export const constraintVocabulary: readonly string[] = [
  'kiv',
  'ral',
  'mub',
  'zep',
  'dax',
  'fim',
  'tosu',
  'bilu',
  'gesk',
  'wupo',
  'hazi',
  'jorl',
  'samel',
  'virot',
  'nuxer',
  'tabec',
  'yolim',
  'cruva',
];
const vocabulary = new Set(constraintVocabulary);

/** One verifiable constraint (JSON-serialisable; `kind` is the prompt's spelling). */
export type Constraint =
  | { kind: 'n' | 'len'; value: number }
  | { kind: 'has' | 'not' | 'start' | 'end' | 'rep'; value: string }
  | { kind: 'sorted'; value: null };
export type ConstraintKind = Constraint['kind'];

const kinds: readonly ConstraintKind[] = ['n', 'has', 'not', 'start', 'end', 'len', 'sorted', 'rep'];

/** The prompt text of a constraint: `n=4`, `len<=3`, `sorted`, `has:kiv`. */
export function formatConstraint(constraint: Constraint): string {
  if (constraint.kind === 'n') return `n=${constraint.value}`;
  if (constraint.kind === 'len') return `len<=${constraint.value}`;
  if (constraint.kind === 'sorted') return 'sorted';
  return `${constraint.kind}:${constraint.value}`;
}

/** A constraint from its prompt text; null when the text is not one. */
export function parseConstraint(text: string): Constraint | null {
  if (text === 'sorted') return { kind: 'sorted', value: null };
  const count = /^n=([0-9])$/.exec(text);
  if (count) return { kind: 'n', value: Number(count[1]) };
  const letters = /^len<=([0-9])$/.exec(text);
  if (letters) return { kind: 'len', value: Number(letters[1]) };
  const word = /^(has|not|start|end|rep):([a-z]+)$/.exec(text);
  if (word) return { kind: word[1] as 'has' | 'not' | 'start' | 'end' | 'rep', value: word[2] };
  return null;
}

/** The constraints of a prompt in order; null when the prompt is not a constraint list. */
export function parseConstraintsPrompt(prompt: string): Constraint[] | null {
  if (typeof prompt !== 'string' || !prompt.endsWith('\n')) return null;
  const constraints = prompt.slice(0, -1).split('|').map(parseConstraint);
  return constraints.every((constraint) => constraint !== null) ? (constraints as Constraint[]) : null;
}

/** A plain-English yes/no question that is "yes" exactly when the constraint holds. */
export function checklistQuestion(constraint: Constraint): string {
  const value = constraint.value;
  switch (constraint.kind) {
    case 'n':
      return `Does the answer have exactly ${value} words?`;
    case 'has':
      return `Does the answer contain the word '${value}'?`;
    case 'not':
      return `Is the answer free of the word '${value}'?`;
    case 'start':
      return `Is the first word of the answer '${value}'?`;
    case 'end':
      return `Is the last word of the answer '${value}'?`;
    case 'len':
      return `Does every word of the answer have at most ${value} letters?`;
    case 'sorted':
      return 'Are the words of the answer in alphabetical order?';
    case 'rep':
      return `Does the word '${value}' appear exactly twice in the answer?`;
  }
}

function occurrences(words: readonly string[], word: string): number {
  return words.filter((candidate) => candidate === word).length;
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

/** How `words` break the constraint (it describes the answer only), or null when they keep it. */
function violation(constraint: Constraint, words: readonly string[]): string | null {
  switch (constraint.kind) {
    case 'n':
      return words.length === constraint.value ? null : `the answer has ${plural(words.length, 'word')}`;
    case 'has':
      return words.includes(constraint.value) ? null : `'${constraint.value}' is missing`;
    case 'not':
      return words.includes(constraint.value) ? `'${constraint.value}' is present` : null;
    case 'start':
      return words[0] === constraint.value ? null : `the first word is '${words[0]}'`;
    case 'end':
      return words[words.length - 1] === constraint.value
        ? null
        : `the last word is '${words[words.length - 1]}'`;
    case 'len': {
      const long = words.find((word) => word.length > constraint.value);
      return long === undefined ? null : `'${long}' has ${plural(long.length, 'letter')}`;
    }
    case 'sorted': {
      const at = words.findIndex((word, i) => i > 0 && words[i - 1] > word);
      return at < 0 ? null : `'${words[at - 1]}' comes before '${words[at]}'`;
    }
    case 'rep': {
      const count = occurrences(words, constraint.value);
      return count === 2 ? null : `'${constraint.value}' appears ${plural(count, 'time')}`;
    }
  }
}

/** Why an answer is not vocabulary words separated by single spaces, or null when it is. */
export function constraintsFormatError(answer: string): string | null {
  if (!/^[a-z]+( [a-z]+)*$/.test(answer))
    return 'the answer must be lowercase words separated by single spaces';
  const unknown = answer.split(' ').find((word) => !vocabulary.has(word));
  return unknown === undefined ? null : `'${unknown}' is not a word of the vocabulary`;
}

/**
 * Each constraint of the problem (prompt order) and whether the completion's answer line keeps it, checked
 * by code on the answer's whitespace-separated words; all false when there is no answer line. `verify`
 * is correct exactly when every entry passes and the answer is vocabulary words separated by single spaces.
 */
export function checkConstraints(
  problem: Problem,
  completion: string,
): { constraint: string; passed: boolean }[] {
  const constraints = parseConstraintsPrompt(problem.prompt) ?? [];
  const answer = extractAnswerLine(completion);
  const words = answer === null ? null : answer.split(/\s+/);
  return constraints.map((constraint) => ({
    constraint: formatConstraint(constraint),
    passed: words !== null && violation(constraint, words) === null,
  }));
}

function verifyConstraints(problem: Problem, completion: string): Verdict {
  const extracted = extractAnswerLine(completion);
  if (extracted === null) return { correct: false, extracted: null, reason: 'no answer line (A:...) found' };
  const constraints = parseConstraintsPrompt(problem.prompt);
  if (constraints === null)
    return { correct: false, extracted, reason: 'the prompt is not a constraint list' };
  const badFormat = constraintsFormatError(extracted);
  if (badFormat !== null) return { correct: false, extracted, reason: badFormat };
  const words = extracted.split(' ');
  for (const constraint of constraints) {
    const why = violation(constraint, words);
    if (why !== null)
      return { correct: false, extracted, reason: `fails '${formatConstraint(constraint)}': ${why}` };
  }
  return { correct: true, extracted };
}

/**
 * A problem from constraints (prompt order) and a witness text that meets them; throws a RangeError when
 * the witness breaks one or is not vocabulary words, so no generated problem is unsatisfiable.
 */
export function constraintsProblem(constraints: readonly Constraint[], witness: readonly string[]): Problem {
  const text = witness.join(' ');
  const broken =
    constraintsFormatError(text) ??
    constraints.map((c) => violation(c, witness)).find((why) => why !== null) ??
    null;
  if (broken !== null)
    throw new RangeError(`${name}: witness '${text}' does not satisfy its constraints: ${broken}`);
  return makeProblem({
    task: name,
    difficulty: constraints.length,
    prompt: `${constraints.map(formatConstraint).join('|')}\n`,
    answer: text,
    solution: `${witness.join('\n')}\nA:${text}`,
    params: { constraints: constraints.length, words: witness.length },
    metadata: {
      constraints: constraints.map((constraint) => ({ kind: constraint.kind, value: constraint.value })),
      checklist: constraints.map(checklistQuestion),
    },
  });
}

/**
 * `count` kinds in prompt order: n, start, end, len, sorted and rep at most once; has only while the
 * witness of `wordCount` words (one fewer distinct when a word is doubled for rep) has a word left to name.
 */
function drawKinds(rng: Rng, count: number, wordCount: number): ConstraintKind[] {
  const drawn: ConstraintKind[] = [];
  for (let i = 0; i < count; i++) {
    const hasCount = occurrences(drawn, 'has');
    const distinctWords = wordCount - (drawn.includes('rep') ? 1 : 0);
    const allowed = kinds.filter((kind) => {
      if (kind === 'has') return hasCount < distinctWords;
      if (kind === 'not') return true;
      if (kind === 'rep') return !drawn.includes(kind) && hasCount < wordCount;
      return !drawn.includes(kind);
    });
    drawn.push(rng.pick(allowed));
  }
  return drawn;
}

/** A witness of `wordCount` words no longer than `maxLetters`: distinct, but one doubled when rep is drawn. */
function drawWitness(
  rng: Rng,
  drawn: readonly ConstraintKind[],
  wordCount: number,
  maxLetters: number,
): string[] {
  const pool = rng.shuffle(constraintVocabulary.filter((word) => word.length <= maxLetters));
  const doubled = drawn.includes('rep');
  const distinct = pool.slice(0, wordCount - (doubled ? 1 : 0));
  const witness = rng.shuffle(doubled ? [...distinct, distinct[0]] : distinct);
  return drawn.includes('sorted') ? witness.sort() : witness;
}

/** What the drawn kinds' values are read from: the witness, its length bound, the words left to name. */
interface Reading {
  witness: readonly string[];
  maxLetters: number;
  /** Distinct witness words no `has:` names yet (popped as they are named). */
  present: string[];
  /** Vocabulary words outside the witness no `not:` names yet (popped as they are named). */
  absent: string[];
}

/** The constraint of one drawn kind, true of the witness by construction. */
function readConstraint(kind: ConstraintKind, reading: Reading): Constraint {
  const { witness } = reading;
  switch (kind) {
    case 'n':
      return { kind, value: witness.length };
    case 'len':
      return { kind, value: reading.maxLetters };
    case 'sorted':
      return { kind, value: null };
    case 'has':
      return { kind, value: reading.present.pop() as string };
    case 'not':
      return { kind, value: reading.absent.pop() as string };
    case 'start':
      return { kind, value: witness[0] };
    case 'end':
      return { kind, value: witness[witness.length - 1] };
    case 'rep':
      return { kind, value: witness.find((word) => occurrences(witness, word) === 2) as string };
  }
}

function generateFromKnobs(rng: Rng, count: number, wordCount: number): Problem {
  const drawn = drawKinds(rng, count, wordCount);
  const maxLetters = drawn.includes('len') ? rng.pick([3, 4]) : 5;
  const witness = drawWitness(rng, drawn, wordCount, maxLetters);
  const reading: Reading = {
    witness,
    maxLetters,
    present: rng.shuffle([...new Set(witness)]),
    absent: rng.shuffle(constraintVocabulary.filter((word) => !witness.includes(word))),
  };
  return constraintsProblem(
    drawn.map((kind) => readConstraint(kind, reading)),
    witness,
  );
}

export const constraints: Task = {
  name,
  description:
    'Write a short text of vocabulary words that satisfies every listed constraint (word count, has/not, start/end, length, order, repeat).',
  difficulty,
  alphabet: sortedAlphabet(
    constraintVocabulary.join(''),
    'n=|has:not:start:end:len<=sorted|rep:',
    '23456',
    '\n A',
  ),
  parameters: [
    { name: 'constraints', min: difficulty.min, max: difficulty.max, integer: true },
    { name: 'words', min: minWords, max: maxWords, integer: true },
  ],
  generate(rng, level) {
    checkDifficulty(name, difficulty, level);
    return generateFromKnobs(rng, level, rng.int(minWords, maxWords));
  },
  generateFromParams(rng, params) {
    return generateFromKnobs(
      rng,
      knob(params.constraints, difficulty.min, difficulty.max, difficulty.min),
      knob(params.words, minWords, maxWords, 4),
    );
  },
  // Prompt ≤ 10d+2: `start:` + 5 letters (11, once), then d−1 × (`|` + 9: has/not/end/rep + 5 letters),
  // newline. Solution ≤ 73: 6 words of ≤ 5 letters one a line (35), `\nA:` and the text (38). Plus BOS, EOS.
  // Attainable (six 5-letter words under start + four word constraints); 127 at d = 5.
  maxSequenceTokens: (level) => 10 * level + 77,
  verify: verifyConstraints,
  extractAnswer: extractAnswerLine,
  canonicalKey: constraintsCanonicalKey,
};

/** The constraint set, sorted (`constraints:has:kiv|n=4`): equal for reorderings of one prompt's constraints. */
export function constraintsCanonicalKey(problem: Problem): string {
  return `${name}:${problem.prompt.trim().split('|').sort().join('|')}`;
}
