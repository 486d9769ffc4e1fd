// The char tokenizer written as a Hugging Face tokenizer.json: @huggingface/tokenizers (the HF library,
// not our code) must give CharTokenizer's ids on every registered task's text, and checkpoints in both
// the new and the legacy tokenizer.json form must load (the shipped demo-cold one included).
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Tokenizer as HfLibraryTokenizer } from '@huggingface/tokenizers';
import { afterAll, describe, expect, it } from 'vitest';
import { TokenizerError } from '../core/errors.ts';
import { Rng } from '../core/rng.ts';
import { tasks } from '../tasks/index.ts';
import { maxAbsDifference } from '../testing/policy/test-helpers.ts';
import { loadTokenizer } from '../tokenizers/load-tokenizer.ts';
import { charSpecialTokens } from './char-tokenizer-json.ts';
import { EmbeddedBackend } from './embedded-backend.ts';
import { ParallelEmbeddedBackend } from './parallel-backend.ts';
import { CharTokenizer, suiteTokenizer } from './tokenizer.ts';

const root = mkdtempSync(join(tmpdir(), 'curricula-char-json-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const demo = join(import.meta.dirname, '../../examples/checkpoints/demo-cold');

/** Prompt + solution texts of every registered task at every difficulty (≥ 300 strings). */
function taskTexts(): string[] {
  const rng = new Rng(11);
  const texts: string[] = [];
  for (const name of tasks.names()) {
    const task = tasks.get(name);
    for (let level = task.difficulty.min; level <= task.difficulty.max; level++) {
      for (let i = 0; i < 12; i++) {
        const problem = task.generate(rng, level);
        texts.push(problem.prompt + problem.solution);
      }
    }
  }
  return texts;
}

/** The legacy tokenizer.json of the suite vocabulary (what demo-cold shipped before issue 11). */
function legacyJson(tokenizer: CharTokenizer) {
  return { type: 'char', pad: 0, bos: 1, eos: 2, characters: [...tokenizer.characters] };
}

describe('CharTokenizer as a Hugging Face tokenizer.json', () => {
  const tokenizer = suiteTokenizer();
  const texts = taskTexts();

  it('@huggingface/tokenizers gives the same ids and text as CharTokenizer on every task', () => {
    expect(texts.length).toBeGreaterThanOrEqual(300);
    const hf = new HfLibraryTokenizer(tokenizer.toJSON(), tokenizer.tokenizerConfig());
    for (const text of texts) {
      const ids = tokenizer.encode(text);
      expect(hf.encode(text).ids, text).toEqual(ids);
      expect(hf.decode(ids, { skip_special_tokens: true })).toBe(text);
    }
    // PAD/BOS/EOS are special added tokens at 0, 1, 2: dropped when decoding, kept otherwise.
    const framed = [tokenizer.bos, ...tokenizer.encode('1+1=2'), tokenizer.eos, tokenizer.pad];
    expect(hf.decode(framed, { skip_special_tokens: true })).toBe('1+1=2');
    expect(hf.decode(framed, { skip_special_tokens: false })).toBe(
      `${charSpecialTokens[1]}1+1=2${charSpecialTokens[2]}${charSpecialTokens[0]}`,
    );
    // Spaces before punctuation survive decoding (clean_up_tokenization_spaces is off in the config).
    expect(hf.decode(tokenizer.encode('a . b , c'), {})).toBe('a . b , c');
  });

  it('reads both forms back to the same ids, and rejects files that would give other ids', () => {
    const fromHf = CharTokenizer.fromJSON(JSON.parse(JSON.stringify(tokenizer.toJSON())));
    const fromLegacy = CharTokenizer.fromJSON(legacyJson(tokenizer));
    expect(fromHf.characters).toEqual(tokenizer.characters);
    expect(fromLegacy.characters).toEqual(tokenizer.characters);
    const reject = (change: (json: any) => void, pattern: RegExp) => {
      const json = JSON.parse(JSON.stringify(tokenizer.toJSON()));
      change(json);
      expect(() => CharTokenizer.fromJSON(json)).toThrow(TokenizerError);
      expect(() => CharTokenizer.fromJSON(json)).toThrow(pattern);
    };
    reject((json) => json.model.merges.push('a b'), /merges/);
    reject((json) => {
      json.model.vocab.A = 5;
      json.model.vocab['!'] = 37;
    }, /not in code-point order/);
    reject((json) => {
      json.model.vocab['€'] = 500;
    }, /not contiguous/);
    reject((json) => {
      json.added_tokens[1].special = false;
    }, /id 1 must be a special added token/);
    reject((json) => {
      json.normalizer = { type: 'Lowercase' };
    }, /normalizer/);
    expect(() => CharTokenizer.fromJSON({ type: 'bpe' })).toThrow(/neither a Hugging Face tokenizer\.json/);
  });

  it('refuses to write a file whose special-token text could be typed in its own vocabulary', () => {
    const greedy = new CharTokenizer([...'<>pad bos eos', '｜']);
    expect(() => greedy.toJSON()).toThrow(/every character of the special token/);
  });
});

describe('checkpoints with either tokenizer.json form', () => {
  it('the shipped demo-cold checkpoint is in the HF form, readable by loadTokenizer with the same ids', () => {
    const stored = JSON.parse(readFileSync(join(demo, 'tokenizer.json'), 'utf8'));
    expect(stored.model.type).toBe('BPE');
    const hf = loadTokenizer(demo);
    const tokenizer = suiteTokenizer();
    expect([hf.pad, hf.bos, hf.eos, hf.vocabSize]).toEqual([0, 1, 2, 99]);
    for (const text of taskTexts().slice(0, 100)) expect(hf.encode(text)).toEqual(tokenizer.encode(text));
  });

  it('loads a legacy checkpoint with the same model, and saves it in the new form', async () => {
    const legacy = join(root, 'legacy');
    cpSync(demo, legacy, { recursive: true });
    rmSync(join(legacy, 'tokenizer_config.json'), { force: true });
    writeFileSync(join(legacy, 'tokenizer.json'), `${JSON.stringify(legacyJson(suiteTokenizer()))}\n`);
    const fromLegacy = await EmbeddedBackend.load(legacy);
    const fromNew = await EmbeddedBackend.load(demo);
    const sequence = [1, ...fromNew.tokenizer.encode('12+30=42\n'), 2];
    expect(fromLegacy.tokenizer.encode('12+30=42\n')).toEqual(fromNew.tokenizer.encode('12+30=42\n'));
    expect(await fromLegacy.forward([sequence])).toEqual(await fromNew.forward([sequence]));
    const resaved = join(root, 'resaved');
    await fromLegacy.save(resaved);
    expect(JSON.parse(readFileSync(join(resaved, 'tokenizer.json'), 'utf8'))).toEqual(
      JSON.parse(readFileSync(join(demo, 'tokenizer.json'), 'utf8')),
    );
    expect(JSON.parse(readFileSync(join(resaved, 'tokenizer_config.json'), 'utf8')).eos_token).toBe(
      charSpecialTokens[2],
    );
    expect(
      readFileSync(join(resaved, 'model.safetensors')).equals(readFileSync(join(demo, 'model.safetensors'))),
    ).toBe(true);
    fromLegacy.dispose();
    fromNew.dispose();
  });

  it('worker replicas rebuild the tokenizer from the HF form (CharTokenizer.fromJSON) and save it back', async () => {
    const parallel = await ParallelEmbeddedBackend.load(demo, { workers: 2, onWarning: () => undefined });
    const single = await EmbeddedBackend.load(demo);
    try {
      const sequence = [1, ...single.tokenizer.encode('7+8=15\n'), 2];
      // One sequence per worker against both in one batch: the same up to float32 rounding.
      const [a, b] = await Promise.all([
        parallel.forward([sequence, sequence]),
        single.forward([sequence, sequence]),
      ]);
      expect(maxAbsDifference(a.flat(), b.flat())).toBeLessThan(1e-5);
      const saved = join(root, 'parallel-saved');
      await parallel.save(saved);
      for (const file of ['tokenizer.json', 'tokenizer_config.json', 'model.safetensors']) {
        expect(readFileSync(join(saved, file)).equals(readFileSync(join(demo, file))), file).toBe(true);
      }
    } finally {
      await parallel.close();
      single.dispose();
    }
  });
});
