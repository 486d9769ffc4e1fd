// Multi-hop questions over a generated document collection, answered with the search tool (issue 30;
// the setting of "R1-Searcher: Incentivizing the Search Capability in LLMs via Reinforcement Learning" and
// "Search-R1: Training LLMs to Reason and Leverage Search Engines with Reinforcement Learning", graded by
// exact match as there; hops and distractors as difficulty after "RAG-RL"'s curriculum). Every problem
// has its own small world (search-world.ts): invented names, a chain of 1–3 facts, near-miss distractor
// documents, carried in metadata.documents ({id, title, text}[]), which a tag-tools block whose search has
// no `documents` file searches per episode (src/environments/problem-search.ts).
//
// Prompt:   `home of maker of Zoba?\n`
// Solution: `<search>Zoba</search><out>Zoba: Zoba made by Kelu</out>\n`
//           `<search>Kelu</search><out>Kelu: Kelu lives in Pami</out>\nA:Pami`
//
// Each `<out>…</out>` is exactly what the search tool shows for that query with `searchResults: 1` (the
// traces assume it; the default 3 would append the fact before's document): an observation span, masked
// from the supervised loss (format.ts solutionDatum). Difficulty = hops (1–3), with as many distractors
// as hops; generateFromParams takes `hops` (1–3) and `distractors` (0–6) apart. Lengths (BOS + prompt +
// solution + EOS, exact maxima) 67·hops + 14: 81, 148, 215 — hop 1 fits the `base` model's 128-token
// context, hops 2–3 need `large` (256). Split: a problem's held-out point is the hash of its answer name
// (metadata.partitionPoint), so at any held-out fraction no held-out answer is ever a training answer,
// and the facts themselves are drawn afresh per problem, so no fact can be memorised.
import type { Problem } from '../core/problem.ts';
import type { Rng } from '../core/rng.ts';
import { partitionPoint } from './held-out-partition.ts';
import { question, relations, searchWorld } from './search-world.ts';
import {
  checkDifficulty,
  extractAnswerLine,
  knob,
  makeProblem,
  sortedAlphabet,
  type Task,
  verifyExactAnswer,
} from './task.ts';

const name = 'search-facts';
const difficulty = { min: 1, max: 3, meaning: 'hops (searches needed), with as many distractor documents' };
const maxDistractors = 6;

/** The worked solution: one search per hop, its output, the answer line; and the outputs' spans. */
export function searchTrace(
  names: readonly string[],
  documents: readonly { title: string; text: string }[],
): { solution: string; spans: [number, number][] } {
  let solution = '';
  const spans: [number, number][] = [];
  for (let j = 0; j + 1 < names.length; j++) {
    const own = documents.find((document) => document.title === names[j]);
    if (!own) throw new RangeError(`${name}: no document for ${names[j]}`);
    solution += `${j > 0 ? '\n' : ''}<search>${names[j]}</search>`;
    // The search tool's answer for one result: `title: snippet` (the whole text: it is 4 words).
    const output = `<out>${own.title}: ${own.text}</out>`;
    spans.push([solution.length, solution.length + output.length]);
    solution += output;
  }
  return { solution: `${solution}\nA:${names[names.length - 1]}`, spans };
}

/** A problem with `hops` hops and `distractors` near-miss documents. */
export function searchFactsProblem(rng: Rng, hops: number, distractors: number): Problem {
  const world = searchWorld(rng, hops, distractors);
  const answer = world.names[hops];
  const { solution, spans } = searchTrace(world.names, world.documents);
  const problem = makeProblem({
    task: name,
    difficulty: hops,
    prompt: `${question(world.names, world.chain)}\n`,
    answer,
    solution,
    params: { hops, distractors },
    metadata: { documents: world.documents, partitionPoint: partitionPoint(name, answer) },
  });
  return { ...problem, observationSpans: spans };
}

export const searchFacts: Task = {
  name,
  description:
    'Multi-hop questions about an invented world given as per-problem documents (metadata.documents), answered with 1-3 <search> calls; exact-match answer.',
  difficulty,
  alphabet: sortedAlphabet(
    'bdfgklmnprstvz',
    'BDFGKLMNPRSTVZ',
    'aeiou',
    ...relations.flatMap((relation) => [relation.noun, relation.phrase]),
    ' of?:\n<>/searchout',
    'A:',
  ),
  parameters: [
    { name: 'hops', min: 1, max: 3, integer: true },
    { name: 'distractors', min: 0, max: maxDistractors, integer: true },
  ],
  generate(rng, level) {
    const hops = checkDifficulty(name, difficulty, level);
    return searchFactsProblem(rng, hops, hops);
  },
  generateFromParams(rng, params) {
    const hops = knob(params.hops, 1, 3, 1);
    return searchFactsProblem(rng, hops, knob(params.distractors, 0, maxDistractors, hops));
  },
  // BOS 1; prompt: `noun of ` per hop + 4 + `?\n`; per hop the call (21) and the output (27 + phrase),
  // a newline between hops; `\nA:` + 4; EOS 1. noun + phrase ≤ 14 (`ally`, `sided with`): 67·hops + 14,
  // attained (every name has 4 characters).
  maxSequenceTokens: (level) => 67 * level + 14,
  verify: verifyExactAnswer,
  extractAnswer: extractAnswerLine,
};
