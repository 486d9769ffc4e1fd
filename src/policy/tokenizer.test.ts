import { describe, expect, it } from 'vitest';
import { TokenizerError } from '../core/errors.ts';
import { Rng } from '../core/rng.ts';
import { tasks } from '../tasks/index.ts';
import { CharTokenizer, suiteTokenizer } from './tokenizer.ts';

describe('CharTokenizer', () => {
  it('puts PAD, BOS, EOS first and sorts characters by code point', () => {
    const tokenizer = new CharTokenizer(['b', 'a', '\n', 'a']);
    expect(tokenizer.vocabSize).toBe(6);
    expect([tokenizer.pad, tokenizer.bos, tokenizer.eos]).toEqual([0, 1, 2]);
    // '\n' (10) < 'a' (97) < 'b' (98)
    expect(tokenizer.encode('ab\nba')).toEqual([4, 5, 3, 5, 4]);
  });

  it('decode drops special tokens and round-trips', () => {
    const tokenizer = new CharTokenizer('0123456789+=\nA:');
    const text = '758+67\n8+7+0=15\n5+6+1=12\n7+0+1=08\nA:825';
    const ids = tokenizer.encode(text);
    expect(tokenizer.decode([tokenizer.bos, ...ids, tokenizer.eos, tokenizer.pad])).toBe(text);
  });

  it('names the unknown character, its code point, index and place', () => {
    const tokenizer = new CharTokenizer('abc');
    expect(() => tokenizer.encode('abé', 'problem add-3-abc prompt')).toThrow(TokenizerError);
    expect(() => tokenizer.encode('abé', 'problem add-3-abc prompt')).toThrow(
      "character '\\u00e9' (U+00E9) at index 2 in problem add-3-abc prompt is not in the tokenizer vocabulary",
    );
    expect(() => tokenizer.encode('a\tb')).toThrow("character '\\t' (U+0009) at index 1 is not");
    expect(() => tokenizer.encode('aZ')).toThrow("character 'Z' (U+005A) at index 1 is not");
  });

  it('serialises to JSON and back, and rejects malformed JSON', () => {
    const tokenizer = suiteTokenizer();
    const restored = CharTokenizer.fromJSON(JSON.parse(JSON.stringify(tokenizer.toJSON())));
    expect(restored.vocabSize).toBe(tokenizer.vocabSize);
    expect(restored.characters).toEqual(tokenizer.characters);
    expect(() => CharTokenizer.fromJSON({ type: 'bpe' })).toThrow(TokenizerError);
    expect(() =>
      CharTokenizer.fromJSON({ type: 'char', pad: 0, bos: 1, eos: 2, characters: ['ab'] }),
    ).toThrow('single characters');
  });
});

describe('suiteTokenizer', () => {
  it('is printable ASCII plus newline: 3 specials + 96 characters, fixed ids', () => {
    const tokenizer = suiteTokenizer();
    expect(tokenizer.vocabSize).toBe(99);
    expect(tokenizer.encode('\n !0A~')).toEqual([3, 4, 5, 4 + 16, 4 + 33, 98]);
  });

  it('encodes every prompt and solution of every registered task', () => {
    const tokenizer = suiteTokenizer();
    const rng = new Rng(7);
    for (const name of tasks.names()) {
      const task = tasks.get(name);
      for (let level = task.difficulty.min; level <= task.difficulty.max; level++) {
        for (let i = 0; i < 20; i++) {
          const problem = task.generate(rng, level);
          const text = problem.prompt + problem.solution;
          expect(tokenizer.decode(tokenizer.encode(text, `problem ${problem.id}`))).toBe(text);
          expect([...text].filter((character) => !task.alphabet.includes(character))).toEqual([]);
        }
      }
    }
  });
});
