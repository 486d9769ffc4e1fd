// Writes examples/corpus/worked-solutions.txt, the small plain-text corpus the `text-corpus` task ships
// with (issue 16 item 2: made by the project, never downloaded). Deterministic: the same script gives the
// same bytes (fixed seeds, the project's Rng). Two parts, each a run of short lines (every line fits the
// demo checkpoints' 128-token context with room for a thought):
//   1. worked solutions of the synthetic tasks (addition, modular-chain, string-compose), prompt line then
//      the solution's lines, a blank line between problems;
//   2. a few hundred lines of generated prose: template sentences over a small fixed vocabulary, in
//      paragraphs of 4-8 sentences (regular enough that a small model can learn to predict them).
// Every character is printable ASCII or newline (the char tokenizer's vocabulary).
//   npx tsx scripts/make-corpus.ts            (writes the file)
//   npx tsx scripts/make-corpus.ts --check    (exits 1 when the committed file differs)
// src/tasks/text-corpus.test.ts checks the committed file against makeCorpus().
import { readFileSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { Rng } from '../src/core/rng.ts';
import { tasks } from '../src/tasks/index.ts';

const output = new URL('../examples/corpus/worked-solutions.txt', import.meta.url);

function workedSolutions(rng: Rng): string[] {
  const plan: [string, number[]][] = [
    ['addition', [1, 2, 3]],
    ['modular-chain', [1, 2]],
    ['string-compose', [1, 2]],
  ];
  const blocks: string[] = [];
  for (let i = 0; i < 60; i++) {
    const [name, levels] = plan[i % plan.length];
    const problem = tasks.get(name).generate(rng, rng.pick(levels));
    blocks.push(`${problem.prompt}${problem.solution}`);
  }
  return blocks;
}

const subjects = ['the fox', 'a cat', 'the old dog', 'my friend', 'the child', 'a bird', 'the farmer', 'our teacher'];
const verbs = ['sees', 'finds', 'carries', 'likes', 'paints', 'counts', 'opens', 'keeps'];
const objects = ['a red box', 'the blue door', 'two apples', 'a small boat', 'the green hat', 'three stones', 'a long rope', 'the map'];
const places = ['near the river', 'in the garden', 'at the market', 'by the road', 'under the tree', 'on the hill'];
const times = ['every morning', 'at night', 'in the spring', 'after lunch', 'on monday', 'before dawn'];

function sentence(rng: Rng): string {
  const subject = rng.pick(subjects);
  const text = `${subject} ${rng.pick(verbs)} ${rng.pick(objects)}`;
  const tail = rng.next() < 0.5 ? ` ${rng.pick(places)}` : ` ${rng.pick(times)}`;
  return `${text[0].toUpperCase()}${text.slice(1)}${tail}.`;
}

function prose(rng: Rng): string[] {
  const paragraphs: string[] = [];
  for (let lines = 0; lines < 320; ) {
    const count = rng.int(4, 8);
    const paragraph: string[] = [];
    for (let i = 0; i < count; i++) paragraph.push(sentence(rng));
    paragraphs.push(paragraph.join('\n'));
    lines += count;
  }
  return paragraphs;
}

export function makeCorpus(): string {
  return `${[...workedSolutions(new Rng(16)), ...prose(new Rng(1616))].join('\n\n')}\n`;
}

function main(): void {
  const text = makeCorpus();
  if (process.argv.includes('--check')) {
  const committed = readFileSync(output, 'utf8');
  if (committed !== text) {
    console.error('examples/corpus/worked-solutions.txt differs from scripts/make-corpus.ts output');
    process.exit(1);
  }
  console.log('corpus up to date');
} else {
  writeFileSync(output, text);
  console.log(`wrote ${text.split('\n').length - 1} lines, ${text.length} characters`);
}
}

// Run as a script (not when a test imports makeCorpus).
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) main();
