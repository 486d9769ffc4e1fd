// Composition of atomic string functions, applied left to right like a shell pipeline, with every
// intermediate string in the worked solution.
//
// Prompt:   `abcd|rev|swp|inc\n`          (input string, then the functions in order of application)
// Solution: `rev:dcba\nswp:cdab\ninc:debc\nA:debc`
// Difficulty d: the number of functions (1..6). Strings are lowercase letters; the input has 3..5 letters
// and intermediates stay within 2..6 letters (dup/drp are only drawn when they keep that bound), so depth 6
// fits a 128-token context. A function never directly undoes the previous one (rol after ror, …).
// Canonical key (held-out `partition: canonical`): the composition — the function sequence — from depth 2
// on, so a held-out problem's composition never occurs in training (a split by composition, as in "From
// f(x) and g(x) to f(g(x))"); a depth-1 problem is keyed by its prompt, so every atomic function is
// trained and only their compositions are held out.
import type { Problem } from '../core/problem.ts';
import type { Rng } from '../core/rng.ts';
import {
  checkDifficulty,
  extractAnswerLine,
  knob,
  makeProblem,
  sortedAlphabet,
  type Task,
  verifyExactAnswer,
} from './task.ts';

const name = 'string-compose';
const difficulty = { min: 1, max: 6, meaning: 'number of composed functions' };
const minLength = 2;
const maxLength = 6;
const letters = 'abcdefghijklmnopqrstuvwxyz';

function shiftLetters(text: string, by: number): string {
  return [...text].map((letter) => letters[(letters.indexOf(letter) + by + 26) % 26]).join('');
}

/** The atomic functions, by their three-letter names. */
export const stringFunctions: Record<string, (text: string) => string> = {
  /** reverse: abcd → dcba */
  rev: (text) => [...text].reverse().join(''),
  /** rotate left by one: abcd → bcda */
  rol: (text) => text.slice(1) + text.slice(0, 1),
  /** rotate right by one: abcd → dabc */
  ror: (text) => text.slice(-1) + text.slice(0, -1),
  /** swap adjacent pairs (an odd last letter stays): abcde → badce */
  swp: (text) => text.replace(/(.)(.)/g, '$2$1'),
  /** shift each letter forward, z wraps to a: abz → bca */
  inc: (text) => shiftLetters(text, 1),
  /** shift each letter back, a wraps to z: abz → zay */
  dec: (text) => shiftLetters(text, -1),
  /** duplicate the first letter: abc → aabc */
  dup: (text) => text.slice(0, 1) + text,
  /** drop the first letter: abc → bc */
  drp: (text) => text.slice(1),
};

const functionNames = Object.keys(stringFunctions);

/** The function that directly undoes each one (never drawn right after it). */
const inverseOf: Record<string, string> = {
  rev: 'rev',
  swp: 'swp',
  rol: 'ror',
  ror: 'rol',
  inc: 'dec',
  dec: 'inc',
  dup: 'drp',
};

/** A problem from an input string and function names (applied left to right). */
export function stringComposeProblem(input: string, functions: readonly string[]): Problem {
  const lines: string[] = [];
  let current = input;
  for (const functionName of functions) {
    const apply = stringFunctions[functionName];
    if (apply === undefined) throw new RangeError(`${name}: unknown function '${functionName}'`);
    current = apply(current);
    lines.push(`${functionName}:${current}`);
  }
  return makeProblem({
    task: name,
    difficulty: functions.length,
    prompt: `${input}|${functions.join('|')}\n`,
    answer: current,
    solution: `${lines.join('\n')}\nA:${current}`,
    params: { depth: functions.length, length: input.length, functions: functions.join(',') },
  });
}

function generateFromKnobs(rng: Rng, depth: number, length: number): Problem {
  let input = '';
  for (let i = 0; i < length; i++) input += rng.pick([...letters]);
  const functions: string[] = [];
  let currentLength = length;
  for (let step = 0; step < depth; step++) {
    const previous = functions[functions.length - 1];
    const allowed = functionNames.filter(
      (candidate) =>
        (previous === undefined || inverseOf[previous] !== candidate) &&
        !(candidate === 'dup' && currentLength >= maxLength) &&
        !(candidate === 'drp' && currentLength <= minLength),
    );
    const chosen = rng.pick(allowed);
    if (chosen === 'dup') currentLength++;
    if (chosen === 'drp') currentLength--;
    functions.push(chosen);
  }
  return stringComposeProblem(input, functions);
}

export const stringCompose: Task = {
  name,
  description: 'Apply a pipeline of string functions (rev, rol, ror, swp, inc, dec, dup, drp) to a word.',
  difficulty,
  alphabet: sortedAlphabet(letters, '|:\n', 'A'),
  parameters: [
    { name: 'depth', min: difficulty.min, max: difficulty.max, integer: true },
    { name: 'length', min: minLength, max: maxLength, integer: true },
  ],
  generate(rng, level) {
    checkDifficulty(name, difficulty, level);
    return generateFromKnobs(rng, level, rng.int(3, 5));
  },
  generateFromParams(rng, params) {
    return generateFromKnobs(
      rng,
      knob(params.depth, difficulty.min, difficulty.max, difficulty.min),
      knob(params.length, minLength, maxLength, 4),
    );
  },
  // prompt ≤ 5+4d+1, solution ≤ d lines of `fff:` + 6 letters, d-1 newlines, `\nA:` + 6, BOS and EOS.
  // generateFromParams with length 6 can add one more character to the prompt.
  maxSequenceTokens: (level) => 15 * level + 16,
  verify: verifyExactAnswer,
  extractAnswer: extractAnswerLine,
  canonicalKey: stringComposeCanonicalKey,
};

/** The composition (`rev|swp`) from depth 2 on; at depth 1 the prompt (see the file header). */
export function stringComposeCanonicalKey(problem: Problem): string {
  const [input, ...functions] = problem.prompt.trim().split('|');
  return functions.length >= 2 ? `${name}:${functions.join('|')}` : `${name}:${input}|${functions.join('|')}`;
}
