// The text-corpus task: deterministic cuts, position-disjoint train/held-out partitions, the prompt window,
// and the config-time errors (missing/empty file, characters outside the vocabulary with line:column).
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeCorpus } from '../../scripts/make-corpus.ts';
import { ConfigError } from '../core/errors.ts';
import { Rng } from '../core/rng.ts';
import { heldOutFraction, heldOutProblems, ProblemMix, validateMix } from './problem-mix.ts';
import { createTextCorpusTask, defaultCorpusPath, heldOutFraction as taskFraction } from './text-corpus.ts';
import { cutCorpus, readCorpus } from './text-corpus-file.ts';

const dir = mkdtempSync(join(tmpdir(), 'text-corpus-'));
const file = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};

describe('text-corpus cuts', () => {
  it('are deterministic by seed, and the prompt is the prefix trimmed to the window', () => {
    const task = createTextCorpusTask({ window: 20 });
    const a = Array.from({ length: 20 }, (_, i) => task.generate(new Rng(i), 1 + (i % 2)));
    const b = Array.from({ length: 20 }, (_, i) => task.generate(new Rng(i), 1 + (i % 2)));
    expect(b).toEqual(a);
    const text = readCorpus(defaultCorpusPath, 'test');
    for (const problem of a) {
      const position = problem.params.position as number;
      const prefix = text.slice(
        position - (problem.prompt.length - (text[position - 1] === '\n' ? 0 : 1)),
        position,
      );
      expect(prefix.length).toBeLessThanOrEqual(20);
      expect(problem.prompt.startsWith(prefix)).toBe(true);
      expect(text.slice(position).startsWith(problem.answer)).toBe(true);
      expect(task.verify(problem, problem.solution).correct).toBe(true);
    }
  });

  it('segment cuts target the next line; token cuts the next word', () => {
    const text = 'one two\nthree four five\nsix\n';
    const segments = cutCorpus(text, { unit: 'segment', window: 100, blockLines: 8, maxTarget: 40 });
    expect(segments.map((cut) => [cut.prefix, cut.target])).toEqual([
      ['one two\n', 'three four five'],
      ['one two\nthree four five\n', 'six'],
    ]);
    const tokens = cutCorpus(text, { unit: 'token', window: 5, blockLines: 8, maxTarget: 40 });
    expect(tokens.map((cut) => cut.target)).toEqual(['two', 'three', 'four', 'five', 'six']);
    expect(tokens[1]).toMatchObject({ prefix: ' two\n', continuation: 'three four five' });
  });

  it('declares the exact longest sequence of each unit (BOS + prompt + solution + EOS)', () => {
    // The first block (3 lines) holds the longest cut; 60 filler lines make blocks on both sides.
    const path = file('small.txt', `one two\nthree four five\nsix\n${'a b\n'.repeat(60)}`);
    const task = createTextCorpusTask({ path, blockLines: 3 });
    // line: prompt 'one two\nthree four five\n' (24) + solution '>three four five\nA:six' (22) + 2
    expect(task.maxSequenceTokens?.(2)).toBe(48);
    // word: the same longest cut ('six'); with a 10-character window the longest is 'five': prompt
    // 'hree four \n' (11) + solution '>hree four\nA:five' (17) + 2
    expect(task.maxSequenceTokens?.(1)).toBe(48);
    const narrow = createTextCorpusTask({ path, blockLines: 3, window: 10 });
    expect(narrow.maxSequenceTokens?.(1)).toBe(30);
  });

  it('train and held-out problems come from disjoint position ranges (blocks), whatever the seed', () => {
    const options = { blockLines: 8 };
    const entry = { task: 'text-corpus', difficulties: [1, 2], weight: 1, options };
    validateMix([entry], 'tasks');
    const heldOut = heldOutProblems([entry], 40, 1);
    const train = new ProblemMix([entry]).pool(150, new Rng(2));
    expect(heldOut.length).toBeGreaterThan(10);
    expect(train.length).toBeGreaterThan(50);
    const range = (p: (typeof train)[number]) => [
      p.params.start as number,
      (p.params.position as number) + p.answer.length,
    ];
    const heldBlocks = new Set(heldOut.map((p) => p.params.block));
    for (const p of train) expect(heldBlocks.has(p.params.block)).toBe(false);
    // Character ranges: prompt start .. target end of every training problem avoid every held-out one.
    for (const t of train) {
      const [ts, te] = range(t);
      for (const h of heldOut) {
        const [hs, he] = range(h);
        expect(te <= hs || he <= ts).toBe(true);
      }
    }
    expect(heldOut.every((p) => (p.metadata?.partitionPoint as number) < heldOutFraction)).toBe(true);
    expect(taskFraction).toBe(heldOutFraction);
  });
});

describe('the shipped corpus', () => {
  it('is exactly what scripts/make-corpus.ts makes, within the vocabulary, lines of at most 49 characters', () => {
    const committed = readFileSync(defaultCorpusPath, 'utf8');
    expect(makeCorpus()).toBe(committed);
    expect(readCorpus(defaultCorpusPath, 'test')).toBe(committed);
    expect(Math.max(...committed.split('\n').map((line) => line.length))).toBeLessThanOrEqual(49);
  });
});

describe('text-corpus bad input (ConfigError at config time)', () => {
  const entry = (options: Record<string, unknown>) => [
    { task: 'text-corpus', difficulties: [1], weight: 1, options },
  ];

  it('names the first character outside the vocabulary, escaped, with its line:column', () => {
    const path = file('oov.txt', 'plain line\nsecond line\ncaf\u00e9 and\ttab\n');
    expect(() => validateMix(entry({ path }), 'tasks')).toThrow(ConfigError);
    expect(() => validateMix(entry({ path }), 'tasks')).toThrow(
      /character '\\u00e9' \(U\+00E9\) at line 3:4 is outside the tokenizer's vocabulary/,
    );
    const tab = file('tab.txt', 'ok\nok\nno\there\n');
    expect(() => createTextCorpusTask({ path: tab })).toThrow(/'\\t' \(U\+0009\) at line 3:3/);
    const cr = file('cr.txt', 'a\r\nb\rc\n');
    expect(() => createTextCorpusTask({ path: cr })).toThrow(/'\\r' \(U\+000D\) at line 2:2/);
  });

  it('refuses a missing or empty file, a bad option and options on a task that takes none', () => {
    expect(() => validateMix(entry({ path: join(dir, 'absent.txt') }), 'tasks')).toThrow(
      /tasks\.0 text-corpus options: cannot read the corpus .*absent\.txt/,
    );
    expect(() => createTextCorpusTask({ path: file('empty.txt', '\n \n') })).toThrow(/is empty/);
    expect(() => createTextCorpusTask({ window: 0 })).toThrow(ConfigError);
    // One block only: every cut on one side of the held-out partition.
    expect(() =>
      createTextCorpusTask({ path: file('one-block.txt', 'one two\nthree four five\nsix\n') }),
    ).toThrow(/puts every line cut on the (training|held-out) side of the 20% held-out partition/);
    expect(() =>
      validateMix([{ task: 'addition', difficulties: [1], weight: 1, options: { path: 'x' } }], 'tasks'),
    ).toThrow(/task addition takes no options/);
  });
});
