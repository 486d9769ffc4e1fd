// The small invented world of one search-facts problem (src/tasks/search-facts.ts): a chain of `hops`
// facts E0 -r1-> E1 -r2-> … -> Ek about made-up names (two consonant-vowel syllables, e.g. `Zoba`, so no
// fact can be known before the documents are read), one document per fact, and `distractors` near-miss
// documents (a chain name with one syllable changed, same relation, another object), shuffled.
//
// A document is {title: subject, text: `subject phrase object`} (`Zoba: Zoba made by Kelu`): the subject
// is written twice so that a search for a name ranks that name's own document strictly first (the FTS5
// BM25 of src/environments/tools/search.ts: term frequency 2 against 1 in the document of the fact before,
// which names it once, at equal length: every phrase has two words). The question names the relations by
// nouns (`maker`, `home`) that no document contains, so only the entity names retrieve anything: the
// documents of E0..E(j-1) never name E(j+1), so a k-hop question needs k searches.
import type { Rng } from '../core/rng.ts';

/** A relation: the question's noun and the documents' two-word phrase (`X made by Y`: Y is X's maker). */
export interface Relation {
  noun: string;
  phrase: string;
}

export const relations: readonly Relation[] = [
  { noun: 'maker', phrase: 'made by' },
  { noun: 'home', phrase: 'lives in' },
  { noun: 'boss', phrase: 'works for' },
  { noun: 'ally', phrase: 'sided with' },
];

const consonants = 'bdfgklmnprstvz';
const vowels = 'aeiou';

/** Words of the prompts, documents and search stopwords: never a name (a name must not match them). */
const reserved = new Set(
  [...relations.flatMap((relation) => [relation.noun, ...relation.phrase.split(' ')]), 'of'].concat(
    'a an and are as at be by for from has his her in is it its of on or that the their to was what when where which who whose why with'.split(
      ' ',
    ),
  ),
);

/** One document of a world: the shape of the search tool's documents ({id, title, text}). */
export interface WorldDocument {
  id: string;
  title: string;
  text: string;
}

/** The world of one problem: its chain (k+1 names, k relations) and its documents in search order. */
export interface SearchWorld {
  names: string[];
  chain: Relation[];
  documents: WorldDocument[];
}

function syllable(rng: Rng): string {
  return consonants[rng.int(0, consonants.length - 1)] + vowels[rng.int(0, vowels.length - 1)];
}

/** A capitalised two-syllable name, 4 characters. */
function name(first: string, second: string): string {
  return first[0].toUpperCase() + first[1] + second;
}

/** A fresh name of the world (not used, not a reserved word). */
function freshName(rng: Rng, used: Set<string>): string {
  for (;;) {
    const candidate = name(syllable(rng), syllable(rng));
    if (!used.has(candidate) && !reserved.has(candidate.toLowerCase())) {
      used.add(candidate);
      return candidate;
    }
  }
}

/** A near miss of `original`: one of its two syllables replaced (fresh, not reserved). */
function nearMiss(rng: Rng, original: string, used: Set<string>): string {
  const lower = original.toLowerCase();
  for (;;) {
    const candidate =
      rng.int(0, 1) === 0 ? name(syllable(rng), lower.slice(2)) : name(lower.slice(0, 2), syllable(rng));
    if (!used.has(candidate) && !reserved.has(candidate.toLowerCase())) {
      used.add(candidate);
      return candidate;
    }
  }
}

function factDocument(subject: string, relation: Relation, object: string): Omit<WorldDocument, 'id'> {
  return { title: subject, text: `${subject} ${relation.phrase} ${object}` };
}

/** The world of a `hops`-hop question with `distractors` near-miss documents. */
export function searchWorld(rng: Rng, hops: number, distractors: number): SearchWorld {
  const used = new Set<string>();
  const names = Array.from({ length: hops + 1 }, () => freshName(rng, used));
  const chain = Array.from({ length: hops }, () => relations[rng.int(0, relations.length - 1)]);
  const facts = chain.map((relation, j) => factDocument(names[j], relation, names[j + 1]));
  for (let d = 0; d < distractors; d++) {
    const j = d % hops;
    const relation = rng.int(0, 1) === 0 ? chain[j] : relations[rng.int(0, relations.length - 1)];
    facts.push(factDocument(nearMiss(rng, names[j], used), relation, freshName(rng, used)));
  }
  rng.shuffle(facts);
  return { names, chain, documents: facts.map((fact, index) => ({ id: `d${index + 1}`, ...fact })) };
}

/** The question of a chain: `home of maker of Zoba?` (the last relation first). */
export function question(names: readonly string[], chain: readonly Relation[]): string {
  return `${[...chain]
    .reverse()
    .map((relation) => `${relation.noun} of `)
    .join('')}${names[0]}?`;
}
